/**
 * @file baseline_cub_sort.cu
 * @brief The library baseline a CUB user writes for many bins: sort the values
 * (`cub::DeviceRadixSort::SortKeys`), run-length encode them
 * (`cub::DeviceRunLengthEncode::Encode`), and write each run's length into its bin.
 *
 * `cub::DeviceHistogram` keeps a private histogram per block in shared memory only up to 256 bins
 * and counts in global memory past that; the sort formulation costs the same at any bin count: a
 * radix sort of all n values (every key bit: values past the last bin exist and must sort after
 * it), one pass to find the runs, and one thread per run below the last bin. The runs of the sorted
 * values are in ascending order, so those below `bins` come first and number at most `bins`.
 * `Encode` counts its items in an int: this baseline refuses n of 2^31 and more.
 */
#include "cl_cuda_check.h"
#include "cl_options.h"
#include "histogram.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <limits.h>
#include <stdio.h>

#define ALIGN 256 /* every buffer of the workspace starts on this boundary */

static size_t aligned(size_t bytes)
{
    return (bytes + ALIGN - 1) / ALIGN * ALIGN;
}

/* The most runs the values can form: n, or 256 for pixels. */
static size_t max_runs(size_t n, input_type type)
{
    return type == TYPE_U8 && n > 256 ? 256 : n;
}

/* CUB's temporary storage for the sort and for the encoding (they run one after the other and
   share it), asked once per problem: the query is host work that stays out of the timed launches.
 */
static size_t cub_temp_bytes(size_t n, input_type type)
{
    static size_t cached_n = 0, cached_bytes = 0;
    static input_type cached_type = TYPE_U32;
    if (n == cached_n && type == cached_type)
        return cached_bytes;
    size_t sort_bytes = 0, encode_bytes = 0;
    const int items = (int)n;
    if (type == TYPE_U8) {
        const unsigned char *keys = NULL;
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(NULL, sort_bytes, keys, (unsigned char *)NULL,
                                                     items, 0, 8));
        CL_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
            NULL, encode_bytes, keys, (unsigned char *)NULL, (int *)NULL, (int *)NULL, items));
    } else {
        const unsigned *keys = NULL;
        CL_CUDA_CHECK(
            cub::DeviceRadixSort::SortKeys(NULL, sort_bytes, keys, (unsigned *)NULL, items, 0, 32));
        CL_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(NULL, encode_bytes, keys, (unsigned *)NULL,
                                                         (int *)NULL, (int *)NULL, items));
    }
    cached_bytes = sort_bytes > encode_bytes ? sort_bytes : encode_bytes;
    cached_n = n, cached_type = type;
    return cached_bytes;
}

/* Where each buffer lives in the workspace: sorted keys, the runs' values and lengths, their
   number, then CUB's temporary storage. */
typedef struct {
    size_t sorted, unique, lengths, runs, temp, total;
} layout;

static layout workspace_layout(size_t n, input_type type)
{
    layout l;
    const size_t key = element_bytes(type);
    l.sorted = 0;
    l.unique = l.sorted + aligned(n * key);
    l.lengths = l.unique + aligned(max_runs(n, type) * key);
    l.runs = l.lengths + aligned(max_runs(n, type) * sizeof(int));
    l.temp = l.runs + aligned(sizeof(int));
    l.total = l.temp + cub_temp_bytes(n, type);
    return l;
}

/* One thread per possible run below the last bin: run r holds value unique[r], lengths[r] times. */
__global__ void runs_to_bins(const void *unique, int is_u8, const int *lengths, const int *runs,
                             unsigned bins, unsigned long long *hist)
{
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= (unsigned)*runs)
        return;
    const unsigned v = is_u8 ? ((const unsigned char *)unique)[r] : ((const unsigned *)unique)[r];
    if (v < bins)
        hist[v] = (unsigned long long)lengths[r];
}

size_t histogram_workspace_bytes(size_t n, unsigned bins, input_type type)
{
    (void)bins;
    if (n > INT_MAX) {
        char value[32];
        snprintf(value, sizeof value, "%zu", n);
        cl_bad_input("n", value,
                     "CUB's DeviceRunLengthEncode::Encode counts its items in an int: at most "
                     "2^31 - 1 values here");
    }
    return workspace_layout(n, type).total;
}

void histogram(const void *in, size_t n, input_type type, unsigned bins, unsigned long long *hist,
               void *workspace, cudaStream_t stream)
{
    const layout l = workspace_layout(n, type);
    char *base = (char *)workspace;
    void *sorted = base + l.sorted, *unique = base + l.unique, *temp = base + l.temp;
    int *lengths = (int *)(base + l.lengths), *runs = (int *)(base + l.runs);
    size_t temp_bytes = cub_temp_bytes(n, type);
    const int items = (int)n;
    if (type == TYPE_U8) {
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, (const unsigned char *)in,
                                                     (unsigned char *)sorted, items, 0, 8, stream));
        CL_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
            temp, temp_bytes, (const unsigned char *)sorted, (unsigned char *)unique, lengths, runs,
            items, stream));
    } else {
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, (const unsigned *)in,
                                                     (unsigned *)sorted, items, 0, 32, stream));
        CL_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, (const unsigned *)sorted,
                                                         (unsigned *)unique, lengths, runs, items,
                                                         stream));
    }
    CL_CUDA_CHECK(cudaMemsetAsync(hist, 0, bins * sizeof(unsigned long long), stream));
    const size_t threads = max_runs(n, type) < bins ? max_runs(n, type) : bins;
    runs_to_bins<<<(unsigned)((threads + 255) / 256), 256, 0, stream>>>(unique, type == TYPE_U8,
                                                                        lengths, runs, bins, hist);
    CL_LAUNCH_CHECK("runs_to_bins");
}
