/**
 * @file seed_index.c
 * @brief What the post's kernel reads: its index formula and grid, simulated on the CPU.
 *
 * The post launches nbContainers / 256 blocks of 16 × 16 threads on a 1D grid and numbers threads
 * with x = blockDim.x·blockIdx.x + threadIdx.x, y = blockDim.y·blockIdx.y + threadIdx.y and
 * index = y·(blockDim.x·blockIdx.x) + x. This program counts, for a few n, the containers that
 * formula reads once, more than once and never, and the reads past the last container.
 */
#include <stdio.h>
#include <stdlib.h>

#define SIDE 16 /* the post's BLOCK_SIZE: blocks of 16 x 16 threads */

static void simulate(unsigned long long n)
{
    unsigned char *reads = calloc(n, 1);
    if (reads == NULL)
        abort();
    const unsigned long long grid = n / (SIDE * SIDE); /* the post's integer division */
    unsigned long long past_end = 0, threads = 0, highest = 0;
    for (unsigned long long block = 0; block < grid; block++)
        for (unsigned long long ty = 0; ty < SIDE; ty++)
            for (unsigned long long tx = 0; tx < SIDE; tx++) {
                const unsigned long long x = SIDE * block + tx, y = ty; /* blockIdx.y = 0 */
                const unsigned long long index = y * (SIDE * block) + x;
                threads++;
                highest = index > highest ? index : highest;
                if (index >= n)
                    past_end++;
                else if (reads[index] < 255)
                    reads[index]++;
            }
    unsigned long long once = 0, several = 0, never = 0, most = 0;
    for (unsigned long long c = 0; c < n; c++) {
        once += reads[c] == 1;
        several += reads[c] > 1;
        never += reads[c] == 0;
        most = reads[c] > most ? reads[c] : most;
    }
    printf("%10llu %8llu %10llu %10llu %10llu %10llu %5llu %12llu %14llu\n", n, grid, threads, once,
           several, never, most, past_end, highest);
    free(reads);
}

int main(void)
{
    printf(
        "# the post's kernel: grid = n / 256 blocks of 16 x 16, index = y*(blockDim.x*blockIdx.x) "
        "+ x\n");
    printf("#        n   blocks    threads  read once   read 2+x never read  most  reads >= n "
           "highest index\n");
    const unsigned long long sizes[] = {256, 1000, 4096, 65536, 1000003, 1ull << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        simulate(sizes[i]);
    return 0;
}
