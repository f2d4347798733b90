#include "bitmap_font.h"

#include <array>

#include <SDL_opengl.h>

namespace play {

namespace {

// Each glyph as art: 7 rows of 5 columns, '#' set and '.' clear.
struct GlyphArt {
  char c;
  const char* rows[kGlyphHeight];
};

// clang-format off
constexpr GlyphArt kArt[] = {
  {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
  {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
  {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
  {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
  {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
  {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
  {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
  {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
  {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
  {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
  {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
  {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
  {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
  {'D', {"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."}},
  {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
  {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
  {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
  {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
  {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
  {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
  {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
  {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
  {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
  {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
  {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
  {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
  {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
  {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
  {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
  {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
  {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
  {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
  {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
  {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
  {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
  {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
  {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
  {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
  {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
  {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
  {'%', {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
  {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
  {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
  {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
  {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
  {'_', {".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
  {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
  {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
  {'!', {"..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#.."}},
  {'?', {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."}},
};
// clang-format on

// Every row must be exactly kGlyphWidth characters of '#' and '.': a typo in the art fails the build.
constexpr bool art_is_well_formed() {
  for (const GlyphArt& g : kArt) {
    for (const char* row : g.rows) {
      int n = 0;
      for (; row[n] != '\0'; ++n)
        if (row[n] != '#' && row[n] != '.') return false;
      if (n != kGlyphWidth) return false;
    }
  }
  return true;
}
static_assert(art_is_well_formed(), "bitmap_font.cpp: every glyph row is 5 characters of '#' and '.'");

// Bits per row (bit 4 the leftmost column), for the 128 ASCII codes; built once from the art.
using GlyphBits = std::array<uint8_t, kGlyphHeight>;

const std::array<GlyphBits, 128>& glyph_table() {
  static const std::array<GlyphBits, 128> table = [] {
    std::array<GlyphBits, 128> t{};
    std::array<bool, 128> known{};
    for (const GlyphArt& g : kArt) {
      GlyphBits bits{};
      for (int row = 0; row < kGlyphHeight; ++row)
        for (int col = 0; col < kGlyphWidth; ++col)
          if (g.rows[row][col] == '#') bits[row] |= uint8_t(1u << (kGlyphWidth - 1 - col));
      t[size_t(g.c)] = bits;
      known[size_t(g.c)] = true;
    }
    for (int c = 0; c < 128; ++c) {
      if (known[size_t(c)]) continue;
      // Lower case reuses upper case; everything else unknown shows as '?'.
      t[size_t(c)] = (c >= 'a' && c <= 'z') ? t[size_t(c - 'a' + 'A')] : t[size_t('?')];
    }
    return t;
  }();
  return table;
}

const GlyphBits& glyph_bits(char c) {
  const auto code = static_cast<unsigned char>(c);
  return glyph_table()[code < 128 ? code : size_t('?')];
}

}  // namespace

bool glyph_pixel(char c, int column, int row) {
  if (column < 0 || column >= kGlyphWidth || row < 0 || row >= kGlyphHeight) return false;
  return (glyph_bits(c)[size_t(row)] >> (kGlyphWidth - 1 - column)) & 1u;
}

int text_width(std::string_view text, int scale) {
  if (text.empty()) return 0;
  return (int(text.size()) * kGlyphAdvance - (kGlyphAdvance - kGlyphWidth)) * scale;
}

void draw_text(std::string_view text, float x, float y, int scale) {
  const float s = float(scale);
  glBegin(GL_QUADS);
  for (size_t i = 0; i < text.size(); ++i) {
    const float left = x + float(i * kGlyphAdvance) * s;
    for (int row = 0; row < kGlyphHeight; ++row) {
      for (int col = 0; col < kGlyphWidth; ++col) {
        if (!glyph_pixel(text[i], col, row)) continue;
        const float px = left + float(col) * s, py = y + float(row) * s;
        glVertex2f(px, py);
        glVertex2f(px + s, py);
        glVertex2f(px + s, py + s);
        glVertex2f(px, py + s);
      }
    }
  }
  glEnd();
}

}  // namespace play
