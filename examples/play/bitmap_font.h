#pragma once
// A tiny built-in 5x7 bitmap font for the overlay (there is no font library): digits, letters (lower
// case drawn as upper case), space and . : / % - = ( ) _ , + ! ?. Anything else is drawn as '?'.

#include <string_view>

namespace play {

inline constexpr int kGlyphWidth = 5;    ///< font pixels
inline constexpr int kGlyphHeight = 7;   ///< font pixels
inline constexpr int kGlyphAdvance = 6;  ///< font pixels from one character to the next
inline constexpr int kLineAdvance = 9;   ///< font pixels from one line to the next

/// True when font pixel (column, row) of `c`'s glyph is set; row 0 is the top, column 0 the left.
bool glyph_pixel(char c, int column, int row);

/// Width of `text` in screen pixels at `scale` screen pixels per font pixel.
int text_width(std::string_view text, int scale);

/// Draws `text` with its top-left corner at (x, y), in a 2D projection whose y grows downward, as
/// GL_QUADS in the current colour, `scale` screen pixels per font pixel.
void draw_text(std::string_view text, float x, float y, int scale);

}  // namespace play
