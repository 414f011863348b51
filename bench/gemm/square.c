/*
 * square.c - the orders of bench_gemm's rounds (bench_gemm.h).
 */
#include "bench_gemm.h"

/*
 * A balanced Latin square of n contestants (Williams): the first row
 * 0, 1, n-1, 2, n-2, ..., row r that row plus r (mod n); for odd n the
 * rows reversed follow, without which one neighbour of each would come
 * first more often.
 */
int bench_square_rows(int n) { return n % 2 == 0 ? n : 2 * n; }

int bench_square_at(int n, int row, int col) {
  const int rows = bench_square_rows(n);
  int r = row % rows, first;
  if (r >= n) /* the reversed half (odd n) */
    r -= n, col = n - 1 - col;
  first = col == 0 ? 0 : col % 2 == 1 ? (col + 1) / 2 : n - col / 2;
  return (first + r) % n;
}

int bench_rounds(int reps, int n) {
  const int rows = bench_square_rows(n);
  return (reps + rows - 1) / rows * rows;
}
