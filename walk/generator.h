// Chooses the walk's next action from a seed, the weights and the model's current state.
//
//   Generator gen(/*seed=*/42, DefaultWeights());
//   Action next = gen.Next(model);      // always runnable on `model` (Predict(...).runnable)
//
// The choice depends only on the seed, the weights and the model, and the model only on
// the outcomes it was given: a walk over the same device with the same seed makes the same
// calls. The random source is std::mt19937_64 seeded through std::seed_seq (both fixed by
// the C++ standard), drawn through absl::Uniform (whose algorithm Abseil may change):
// reproducible for one build, in every process (absl::BitGen is not: it salts its seed
// per process); walk.json records the actions themselves, and `--replay` of that file is
// the form that survives a rebuild with another Abseil.
#ifndef RDMACHECK_WALK_GENERATOR_H_
#define RDMACHECK_WALK_GENERATOR_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/random/random.h"
#include "walk/action.h"
#include "walk/model.h"

namespace rdmacheck::walk {

// At most this many live objects of a kind: the walk stays small enough for any device.
int MaxAlive(Kind kind);

class Generator {
 public:
  Generator(uint64_t seed, Weights weights);
  Action Next(const Model& model);

 private:
  // One action of `category`, or false when the model offers none.
  bool Try(const std::string& category, const Model& model, Action& out);
  bool TryCreate(const Model& model, Action& out);
  bool TryModify(const Model& model, Action& out);
  bool TryPost(bool send, const Model& model, Action& out);
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[absl::Uniform<size_t>(gen_, 0, items.size())];
  }
  bool Chance(int numerator, int denominator) { return absl::Uniform<int>(gen_, 0, denominator) < numerator; }

  std::mt19937_64 gen_;  // not absl::BitGen: it salts its seed per process (no replay by seed)
  Weights weights_;
};

// The model alone, each step given its predicted answer: no device. The same seed, weights
// and traits give the same list.
std::vector<Action> GenerateDryRun(uint64_t seed, int steps, const Weights& weights, const Traits& traits);

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_GENERATOR_H_
