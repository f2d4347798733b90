#include "bots/bot_brain.h"

#include <cmath>

#include "bots/rng.h"
#include "bots/tag_brain.h"

namespace foothold::bots {

namespace {

constexpr double kPi = 3.14159265358979323846;

class Wander final : public client::InputSource {
 public:
  Wander(uint64_t seed, int tick_rate) : rng_{seed}, rate_(tick_rate) {}
  InputCmd next(uint32_t tick, const CharacterState&) override {
    if (left_ == 0) {
      angle_ = rng_.uniform() * 2 * kPi;
      left_ = uint32_t(rate_ * (1 + 2 * rng_.uniform()));
    }
    --left_;
    const bool jump = rng_.uniform() < 0.6 / rate_;  // about one jump in two seconds
    return encode_move(std::cos(angle_), std::sin(angle_), jump ? kButtonJump : 0, tick);
  }

 private:
  Rng rng_;
  int rate_;
  double angle_ = 0;
  uint32_t left_ = 0;
};

class Circle final : public client::InputSource {
 public:
  Circle(uint64_t seed, int tick_rate) : phase_(Rng{seed}.uniform() * 2 * kPi), rate_(tick_rate) {}
  InputCmd next(uint32_t tick, const CharacterState&) override {
    // A full turn every four seconds at walking speed: a circle of about 3 m radius.
    const double a = phase_ + 2 * kPi * double(tick) / (4.0 * rate_);
    return encode_move(std::cos(a), std::sin(a), 0, tick);
  }

 private:
  double phase_;
  int rate_;
};

class Jumper final : public client::InputSource {
 public:
  explicit Jumper(uint64_t seed) : angle_(Rng{seed}.uniform() * 2 * kPi) {}
  InputCmd next(uint32_t tick, const CharacterState& s) override {
    return encode_move(0.2 * std::cos(angle_), 0.2 * std::sin(angle_), is_grounded(s.ground) ? kButtonJump : 0, tick);
  }

 private:
  double angle_;
};

class Script final : public client::InputSource {
 public:
  explicit Script(const replay::InputScript& script) : script_(script) {}
  InputCmd next(uint32_t tick, const CharacterState&) override {
    if (script_.lines.empty()) return InputCmd{0, 0, 0, 0};
    const auto& line = script_.lines[line_];
    InputCmd in = line.command;
    in.tick = tick;
    if (++used_ >= line.ticks) {
      used_ = 0;
      line_ = (line_ + 1) % script_.lines.size();
    }
    return in;
  }

 private:
  const replay::InputScript& script_;
  std::size_t line_ = 0;
  uint32_t used_ = 0;
};

// Rides a mover: heads for its middle (where the mover is now: a pure function of the tick), and
// once aboard keeps pushing toward the middle, so that the bots on one mover crowd each other.
class Ride final : public client::InputSource {
 public:
  Ride(uint64_t seed, int tick_rate, const World& world, std::size_t mover)
      : rng_{seed}, rate_(tick_rate), mover_(world.movers()[mover]), platform_(uint16_t(mover + 1)) {
    // The middle of the mover's own bounds, in its axes.
    Vec3 lo = mover_.local[0].lo, hi = mover_.local[0].hi;
    for (const auto& t : mover_.local) {
      lo = {std::fmin(lo.x, t.lo.x), std::fmin(lo.y, t.lo.y), std::fmin(lo.z, t.lo.z)};
      hi = {std::fmax(hi.x, t.hi.x), std::fmax(hi.y, t.hi.y), std::fmax(hi.z, t.hi.z)};
    }
    middle_ = (lo + hi) * 0.5;
  }
  InputCmd next(uint32_t tick, const CharacterState& s) override {
    const Vec3 target = apply(chain_pose(mover_.chain, tick, rate_), middle_);
    Vec3 to = horizontal(target - to_position(s.position));
    const bool aboard = s.platform == platform_;
    // Aboard and near the middle: a little jostle; now and then a crouch or a hop.
    if (aboard && length(to) < 0.3) to = {rng_.uniform() - 0.5, 0, rng_.uniform() - 0.5};
    // Beside a mover that is up out of reach (an elevator at the top): wait for it to come down.
    // (The reference character's feet are 0.9 m below its centre.)
    if (!aboard && length(to) < 4 && target.y - (to_position(s.position).y - 0.9) > 0.5) to = {};
    const double len = length(to);
    const double speed = aboard ? 0.5 : 1.0;
    if (crouch_left_ > 0) --crouch_left_;
    if (aboard && rng_.uniform() < 0.3 / rate_) crouch_left_ = uint32_t(rate_);
    const bool jump = rng_.uniform() < (aboard ? 0.2 : 0.6) / rate_;
    const uint8_t buttons = uint8_t((jump ? kButtonJump : 0) | (crouch_left_ > 0 ? kButtonCrouch : 0));
    return len > 0 ? encode_move(speed * to.x / len, speed * to.z / len, buttons, tick) : encode_move(0, 0, buttons, tick);
  }

 private:
  Rng rng_;
  int rate_;
  const Mover& mover_;
  uint16_t platform_;
  Vec3 middle_;
  uint32_t crouch_left_ = 0;
};

}  // namespace

bool parse_pattern(const std::string& text, PatternSpec& out, std::string& error) {
  if (text == "wander") {
    out.pattern = Pattern::kWander;
  } else if (text == "circle") {
    out.pattern = Pattern::kCircle;
  } else if (text == "jump") {
    out.pattern = Pattern::kJump;
  } else if (text == "ride") {
    out.pattern = Pattern::kRide;
  } else if (text == "tag") {
    out.pattern = Pattern::kTag;
  } else if (text == "shoot") {
    out.pattern = Pattern::kShoot;
  } else if (text.rfind("script:", 0) == 0) {
    out.pattern = Pattern::kScript;
    out.script = replay::load_input_script(text.substr(7));
    if (!out.script.ok()) {
      error = out.script.error;
      return false;
    }
  } else {
    error = "--pattern '" + text + "' is not wander, circle, jump, ride, tag, shoot or script:FILE";
    return false;
  }
  return true;
}

std::unique_ptr<client::InputSource> make_brain(const PatternSpec& spec, uint64_t seed, uint32_t bot_index, int tick_rate,
                                                const World* world, const client::ClientSession* session) {
  const uint64_t s = brain_seed(seed, bot_index);
  switch (spec.pattern) {
    case Pattern::kWander:
    case Pattern::kShoot: return std::make_unique<Wander>(s, tick_rate);  // the shots are the fleet's (bots/shooter.h)
    case Pattern::kCircle: return std::make_unique<Circle>(s, tick_rate);
    case Pattern::kJump: return std::make_unique<Jumper>(s);
    case Pattern::kScript: return std::make_unique<Script>(spec.script);
    case Pattern::kRide:
      if (world && !world->movers().empty())
        return std::make_unique<Ride>(s, tick_rate, *world, bot_index % world->movers().size());
      return std::make_unique<Wander>(s, tick_rate);
    case Pattern::kTag:
      if (session) return make_tag_brain(seed, bot_index, tick_rate, [session] { return tag_view(*session); });
      return make_tag_brain(seed, bot_index, tick_rate, [] { return TagView{}; });
  }
  return std::make_unique<Wander>(s, tick_rate);
}

}  // namespace foothold::bots
