/**
 * @file colour.cuh
 * @brief The smooth value count + 1 − log2(log2 |z|) of an escaped pixel, two ways: with the C
 * library's logf and IEEE divisions (v1–v5), and with the hardware's approximate log2 (v6 on).
 * @p r2 is |z|² at escape (> 4); a pixel that never escaped gets maxiter.
 */
#ifndef COLOUR_CUH
#define COLOUR_CUH

/** logf twice and two divisions by ln 2: about 70 instructions, accurate to a few ulp. */
static __device__ __forceinline__ float smooth_logf(unsigned count, float r2, unsigned maxiter)
{
    if (count >= maxiter)
        return (float)maxiter;
    const float ln2 = 0.693147181f;
    const float log2_abs_z = logf(r2) / 2.0f / ln2; /* log2 |z| = ln |z|² / 2 / ln 2 */
    return (float)count + 1.0f - logf(log2_abs_z) / ln2;
}

/**
 * __log2f twice (MUFU.LG2, one instruction each, absolute error about 2^-22 near 1): log2 needs no
 * division by ln 2, so there is nothing left for __fdividef to speed up.
 */
static __device__ __forceinline__ float smooth_fast(unsigned count, float r2, unsigned maxiter)
{
    if (count >= maxiter)
        return (float)maxiter;
    return (float)count + 1.0f - __log2f(0.5f * __log2f(r2));
}

#endif
