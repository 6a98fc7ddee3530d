/**
 * @file count_picks.cu
 * @brief v13's count (choose_shape(): the tile's width and the slices of k), called on the host
 * with the 66 clusters an H100 runs at once: the picks that part 2's text and exercises state are
 * asserted here, so that a change to one of its constants that moves them fails a cpu test.
 */
#include "../v13_tile_per_shape.cu"

#include <stdio.h>

typedef struct {
    int m, n, k;
    int width, slices; /* the pick: columns of the tile, S */
    const char *where; /* where the page states it */
} stated_pick;

int main(void)
{
    const int clusters = 66;
    const stated_pick picks[] = {
        {64, 8192, 8192, 64, 1, "exercise \"The count at m = 64\": 64 narrow pairs, unsplit"},
        {1, 8192, 8192, 64, 1, "few rows: the narrow tile, unsplit"},
        {1024, 1024, 1024, 64, 1, "v12 -> v13: 64 pairs of 128 x 64 at 1024^3"},
        {1536, 1536, 1536, 256, 1, "exercise \"The count at 1536^3\": one wave of 36 wide pairs"},
        {16, 4096, 4096, 64, 3, "what was tried: the narrow tile split three ways"},
        {4096, 4096, 4096, 256, 1, "the large squares keep the wide tile"},
        {8192, 8192, 8192, 256, 1, "the large squares keep the wide tile"},
        {130, 2, 1031, 64, 17, "how the result is checked: the split shape"},
        {100, 96, 64, 256, 1, "how the result is checked: the wide tile side by side (m100n96k64)"},
    };
    const int count = (int)(sizeof picks / sizeof picks[0]);
    int failures = 0;
    for (int i = 0; i < count; i++) {
        int width = -1;
        const int slices = choose_shape(picks[i].m, picks[i].n, picks[i].k, clusters, &width);
        const int columns = BN_MAX >> 2 * width;
        if (columns != picks[i].width || slices != picks[i].slices) {
            printf("FAIL %d x %d x %d: the count picks %d columns, S = %d; the page says %d, %d "
                   "(%s)\n",
                   picks[i].m, picks[i].n, picks[i].k, columns, slices, picks[i].width,
                   picks[i].slices, picks[i].where);
            failures++;
        }
    }
    printf("%d of %d picks as the page states them\n", count - failures, count);
    return failures > 0 ? 1 : 0;
}
