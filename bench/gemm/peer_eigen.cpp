/*
 * peer_eigen.cpp - Eigen 3.4 (see peers.h): row-major maps of the operands
 * and C.noalias() = A * B, the product Eigen's users write.  Eigen splits
 * a product over threads only when built with OpenMP (this file is, where
 * the compiler has it).
 */
#include <Eigen/Core>
#include <cstdio>
#include <cstdlib>

#include "peer_adapters.h"

namespace {

typedef Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> RowMatrix;

int eigen_open(char *info, size_t info_cap, char *why, size_t why_cap) {
  (void)why, (void)why_cap;
  std::snprintf(info, info_cap, "%d.%d.%d, %s%s", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                EIGEN_MINOR_VERSION, Eigen::SimdInstructionSetsInUse(),
#ifdef _OPENMP
                ", OpenMP"
#else
                ", one thread (no OpenMP)"
#endif
  );
  return 0;
}

int eigen_plan(void **plan, const bench_peer_args *args, char *why, size_t why_cap) {
#ifdef _OPENMP
  Eigen::setNbThreads(args->threads);
#else
  if (args->threads != 1) {
    std::snprintf(why, why_cap, "Eigen: one thread only (built without OpenMP)");
    return -1;
  }
#endif
  return bench_peer_plan_args(plan, args, why, why_cap);
}

void eigen_run(void *plan) {
  const bench_peer_args *x = static_cast<const bench_peer_args *>(plan);
  Eigen::Map<const RowMatrix> a(x->a, x->m, x->k), b(x->b, x->k, x->n);
  Eigen::Map<RowMatrix> c(x->c, x->m, x->n);
  c.noalias() = a * b;
}

} // namespace

extern "C" const bench_peer_adapter bench_peer_eigen = {
    "Eigen", "eigen", eigen_open, eigen_plan, eigen_run, bench_peer_plan_args_free};
