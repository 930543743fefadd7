// The one-sided operations of the MPI library, one by one: rank 0 sets a
// word of rank 1 to 6, applies op with operand 3 by MPI_Fetch_and_op, and
// reads the word back; then compare-and-swap, and MPI_BOR by
// MPI_Get_accumulate and MPI_Accumulate on 1, 2 and 4 64-bit words (run.sh:
// across 2 emulated hosts, Open MPI and MPICH).
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
int main(int argc, char** argv) {
  int prov; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  int r, n; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  uint64_t* base; MPI_Win win;
  MPI_Win_allocate(64 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 64; i++) base[i] = 0;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Op ops[] = {MPI_BOR, MPI_SUM, MPI_BAND, MPI_BXOR, MPI_REPLACE, MPI_MAX};
  const char* names[] = {"BOR", "SUM", "BAND", "BXOR", "REPLACE", "MAX"};
  MPI_Datatype types[] = {MPI_UINT64_T, MPI_INT64_T, MPI_UINT32_T, MPI_UNSIGNED_LONG};
  const char* tn[] = {"uint64", "int64", "uint32", "ulong"};
  if (r == 0) {
    int slot = 0;
    for (int ti = 0; ti < 4; ti++)
      for (int oi = 0; oi < 6; oi++, slot++) {
        uint64_t init = 6, v = 3, old = 99, after = 0;
        MPI_Put(&init, 1, MPI_UINT64_T, 1, slot, 1, MPI_UINT64_T, win); MPI_Win_flush(1, win);
        MPI_Fetch_and_op(&v, &old, types[ti], 1, slot, ops[oi], win); MPI_Win_flush(1, win);
        MPI_Get(&after, 1, MPI_UINT64_T, 1, slot, 1, MPI_UINT64_T, win); MPI_Win_flush(1, win);
        printf("%-7s %-7s old %lu after %lu\n", tn[ti], names[oi], old, after);
      }
    uint64_t init[4] = {6, 6, 6, 6}, v[4] = {3, 3, 3, 3}, old[4] = {0}, after[4] = {0}, cmp = 6, des = 11, res = 0;
    const int at = 32;
    MPI_Put(init, 1, MPI_UINT64_T, 1, at, 1, MPI_UINT64_T, win); MPI_Win_flush(1, win);
    MPI_Compare_and_swap(&des, &cmp, &res, MPI_UINT64_T, 1, at, win); MPI_Win_flush(1, win);
    MPI_Get(after, 1, MPI_UINT64_T, 1, at, 1, MPI_UINT64_T, win); MPI_Win_flush(1, win);
    printf("CAS64 6->11: res %lu after %lu\n", res, after[0]);
    for (int cnt = 1; cnt <= 4; cnt *= 2) {
      MPI_Put(init, 4, MPI_UINT64_T, 1, at + 8, 4, MPI_UINT64_T, win); MPI_Win_flush(1, win);
      MPI_Get_accumulate(v, cnt, MPI_UINT64_T, old, cnt, MPI_UINT64_T, 1, at + 8, cnt, MPI_UINT64_T, MPI_BOR, win);
      MPI_Win_flush(1, win);
      MPI_Get(after, 4, MPI_UINT64_T, 1, at + 8, 4, MPI_UINT64_T, win); MPI_Win_flush(1, win);
      printf("Get_acc BOR x%d: old %lu after %lu %lu %lu %lu\n", cnt, old[0], after[0], after[1], after[2], after[3]);
      MPI_Put(init, 4, MPI_UINT64_T, 1, at + 8, 4, MPI_UINT64_T, win); MPI_Win_flush(1, win);
      MPI_Accumulate(v, cnt, MPI_UINT64_T, 1, at + 8, cnt, MPI_UINT64_T, MPI_BOR, win); MPI_Win_flush(1, win);
      MPI_Get(after, 4, MPI_UINT64_T, 1, at + 8, 4, MPI_UINT64_T, win); MPI_Win_flush(1, win);
      printf("Acc BOR x%d: after %lu %lu %lu %lu\n", cnt, after[0], after[1], after[2], after[3]);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
