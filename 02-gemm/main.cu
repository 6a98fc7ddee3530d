/**
 * @file main.cu
 * @brief Lesson 02's harness, shared by every version: options, inputs, the checked run, timing,
 * report. A version file brings gemm() or gemm_bf16() (or both), gemm_workspace_bytes() and
 * gemm_supports().
 */
#include "gemm.h"

#include "cl_bench.h"
#include "cl_cuda_check.h"
#include "cl_parallel.h"
#include "cl_tensor_ceiling.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A version defines gemm(), gemm_bf16() or both. Declared weak here, the one it leaves out
   resolves to NULL at link time instead of failing the link: the harness reads which it has. */
extern "C" {
void gemm(const float *a, const float *b, float *c, int m, int n, int k, semiring ring,
          void *workspace, cudaStream_t stream) __attribute__((weak));
void gemm_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k,
               void *workspace, cudaStream_t stream) __attribute__((weak));
}

/* The element type of A and B (--type); C is FP32 either way. */
typedef enum { INPUT_FP32, INPUT_BF16 } input_type;

void gemm_require_device(int major, int minor, int exact, int built, const char *feature)
{
    if (!built) {
        fprintf(stderr,
                "%s needs code for compute capability %d.%d, which this build left out "
                "(CMAKE_CUDA_ARCHITECTURES): skipped\n",
                feature, major, minor);
        exit(77);
    }
    cl_require_compute_capability(major, minor, exact, feature);
}

static int parse_dim(const char *text, void *target, char *accepted, size_t len)
{
    uint64_t value;
    if (cl_parse_size(text, &value) != 0 || value < 1 || value > GEMM_MAX_DIM) {
        snprintf(accepted, len, "a matrix dimension from 1 to 65536");
        return -1;
    }
    *(int *)target = (int)value;
    return 0;
}

typedef struct {
    const void *a, *b; /* float or __nv_bfloat16, as type says */
    float *c;
    input_type type;
    void *workspace; /* gemm_workspace_bytes() of it, for the versions that need one */
    int m, n, k;
    semiring ring;
    const float *host_a, *host_b; /* the inputs (BF16 values, for --type bf16), for the reference */
    float *host_c;                /* where the output is copied back */
    uint64_t seed;                /* picks the sampled elements */
} run_args;

static void launch(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    if (r->type == INPUT_BF16)
        gemm_bf16((const __nv_bfloat16 *)r->a, (const __nv_bfloat16 *)r->b, r->c, r->m, r->n, r->k,
                  r->workspace, stream);
    else
        gemm((const float *)r->a, (const float *)r->b, r->c, r->m, r->n, r->k, r->ring,
             r->workspace, stream);
}

static cl_check_result check_product(const float *a, const float *b, const float *c, int m, int n,
                                     int k, semiring ring, input_type type, uint64_t seed)
{
    const cl_worst worst = gemm_check_product(a, b, c, m, n, k, ring, seed);
    cl_check_result result;
    if (ring == SEMIRING_MIN_PLUS) {
        result =
            cl_check_scaled(worst.error, 0.0, 1.0, 0.0, "elements that differ from the exact min");
    } else {
        /* Any order of k fused multiply-adds errs by at most gamma_k Σ|a·b| (Higham, Thm 3.1 with
           FMA). BF16 products are exact in FP32 (8 + 8 significant bits), but the tensor cores
           add them with truncation, not rounding: up to twice the error per addition, so
           gamma_2k bounds it. */
        const double bound = cl_float_gamma(type == INPUT_BF16 ? 2.0 * k : (double)k);
        result = cl_check_scaled(worst.error, 0.0, 1.0, bound,
                                 "max |c - exact| / sum |a*b| over the checked elements");
    }
    cl_check_where(&result, "C[%zu][%zu] = %.9g; the reference is %.17g (the worst checked)",
                   worst.row, worst.col, worst.got, worst.want);
    return result;
}

/* C starts as NaN everywhere before a checked run, so an element nobody wrote fails. */
static void poison_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    cl_poison(r->c, (size_t)r->m * (size_t)r->n * sizeof(float), stream);
}

/* Copies C back to the host and checks it against the double-precision reference. */
static cl_check_result check_output(void *context, cudaStream_t stream)
{
    const run_args *r = (const run_args *)context;
    CL_CUDA_CHECK(cudaStreamSynchronize(stream));
    cl_copy_to_host(r->host_c, r->c, (size_t)r->m * (size_t)r->n * sizeof(float), "C");
    return check_product(r->host_a, r->host_b, r->host_c, r->m, r->n, r->k, r->ring, r->type,
                         r->seed);
}

int main(int argc, char **argv)
{
    cl_options opt;
    int m = 0, k = 0;                                                   /* 0: the same as --n */
    static const char *const ring_names[] = {"plus-times", "min-plus"}; /* order of semiring */
    static const char *const type_names[] = {"fp32", "bf16"};           /* order of input_type */
    cl_choice ring = {ring_names, 2, SEMIRING_PLUS_TIMES};
    /* a version of the tensor-core path alone takes BF16: there, that is the default */
    cl_choice type = {type_names, 2, gemm != NULL ? INPUT_FP32 : INPUT_BF16};
    const cl_extra_option extra[] = {
        {"m", "M", "rows of A and C (1 to 65536)", "--n", parse_dim, &m},
        {"k", "K", "columns of A, rows of B (1 to 65536)", "--n", parse_dim, &k},
        {"semiring", "S", "plus-times (C = A·B) or min-plus (c = min a + b)", "plus-times",
         cl_parse_choice, &ring},
        {"type", "T", "fp32 or bf16: the type of A and B (C is fp32)",
         gemm != NULL ? "fp32" : "bf16", cl_parse_choice, &type}};
    cl_options_defaults(&opt, 2048);
    cl_parse_options(argc, argv,
                     "Lesson 02: C = A·B (m×k times k×n, row-major), checked against double "
                     "precision. --n sets the columns of B and C, and m and k unless given.",
                     &opt, extra, 4);
    if (opt.n < 1 || opt.n > GEMM_MAX_DIM)
        cl_bad_input("n", opt.n_text, "expected a matrix dimension from 1 to 65536");
    const int n = (int)opt.n;
    m = m ? m : n;
    k = k ? k : n;
    const input_type input = (input_type)type.value;
    if (input == INPUT_FP32 && gemm == NULL)
        cl_bad_input("type", "fp32", "this version takes bf16 inputs only");
    if (input == INPUT_BF16 && gemm_bf16 == NULL)
        cl_bad_input("type", "bf16", "this version takes fp32 inputs only");
    if (input == INPUT_BF16 && ring.value != SEMIRING_PLUS_TIMES)
        cl_bad_input("semiring", cl_choice_name(&ring), "BF16 inputs are for plus-times only");
    if (!gemm_supports((semiring)ring.value))
        cl_bad_input("semiring", cl_choice_name(&ring), "this version computes plus-times only");
    const size_t element = input == INPUT_BF16 ? sizeof(__nv_bfloat16) : sizeof(float);
    const size_t a_bytes = (size_t)m * (size_t)k * element;
    const size_t b_bytes = (size_t)k * (size_t)n * element;
    const size_t c_bytes = (size_t)m * (size_t)n * sizeof(float);
    /* the host keeps A and B as floats (for the reference), and their BF16 copies to upload */
    const size_t host_inputs =
        ((size_t)m * k + (size_t)k * n) * (sizeof(float) + (input == INPUT_BF16 ? element : 0));
    cl_require_host_memory(opt.n_text, host_inputs + c_bytes);

    cl_bench bench;
    cl_bench_open(&bench, "02-gemm", argv[0], &opt);
    const size_t workspace_bytes = gemm_workspace_bytes(m, n, k);
    cl_require_device_memory(&bench.dev, opt.n_text, a_bytes + b_bytes + c_bytes + workspace_bytes);

    float *a = (float *)cl_host_alloc(opt.n_text, (size_t)m * k * sizeof(float), "the matrix A");
    float *b = (float *)cl_host_alloc(opt.n_text, (size_t)k * n * sizeof(float), "the matrix B");
    float *c = (float *)cl_host_alloc(opt.n_text, c_bytes, "the matrix C");
    fill_matrix(a, (size_t)m * (size_t)k, opt.seed);
    fill_matrix(b, (size_t)k * (size_t)n, opt.seed + 1);
    const void *upload_a = a, *upload_b = b;
    unsigned short *bits_a = NULL, *bits_b = NULL;
    if (input == INPUT_BF16) { /* rounded once, here, outside any timing */
        bits_a = (unsigned short *)cl_host_alloc(opt.n_text, a_bytes, "the BF16 matrix A");
        bits_b = (unsigned short *)cl_host_alloc(opt.n_text, b_bytes, "the BF16 matrix B");
        round_to_bf16(a, bits_a, (size_t)m * (size_t)k);
        round_to_bf16(b, bits_b, (size_t)k * (size_t)n);
        upload_a = bits_a, upload_b = bits_b;
    }
    void *d_a, *d_b;
    float *d_c;
    CL_CUDA_CHECK(cudaMalloc(&d_a, a_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_b, b_bytes));
    CL_CUDA_CHECK(cudaMalloc(&d_c, c_bytes));
    void *workspace = cl_device_alloc_zeroed(workspace_bytes);
    cl_copy_to_device(d_a, upload_a, a_bytes, "A");
    cl_copy_to_device(d_b, upload_b, b_bytes, "B");
    free(bits_a);
    free(bits_b);
    run_args args = {d_a, d_b, d_c, input,   workspace, m, n, k, (semiring)ring.value,
                     a,   b,   c,   opt.seed};
    const cl_run run = {launch, poison_output, check_output, &args};

    cl_report *report = &bench.report;
    if (input == INPUT_BF16)
        cl_report_append_case(report, "m=%d k=%d %s bf16", m, k, cl_choice_name(&ring));
    else
        cl_report_append_case(report, "m=%d k=%d %s", m, k, cl_choice_name(&ring));
    /* 2mnk operations (a multiply and an add, or an add and a min, per term). An FFMA does both
       for +·; min-plus needs an FADD and an FMNMX, so its ceiling is half the FP32 FMA rate. BF16
       runs on the tensor cores, whose dense rate a probe measures (common/cl_tensor_ceiling.cu). */
    report->unit = "TFLOP/s";
    report->ceiling_name = input == INPUT_BF16 ? "BF16 tensor rate" : "FP32 rate";
    report->work = 2.0 * (double)m * (double)n * (double)k;
    report->unit_per_second = 1e12;

    /* The checked run; the last timed run is checked again after timing. */
    cl_bench_check(&bench, &run);
    const cl_ceilings *ceilings = cl_bench_time(&bench, &run);
    if (ceilings != NULL && input == INPUT_BF16)
        report->ceiling = cl_measure_bf16_tensor_tflops(&bench);
    else if (ceilings != NULL)
        report->ceiling =
            ceilings->fp32_gflops / 1e3 / (ring.value == SEMIRING_MIN_PLUS ? 2.0 : 1.0);
    /* A product with few rows (or columns) does little arithmetic per byte: at m = 16 each BF16
       element of B read (2 bytes) takes part in 32 operations. Reading A and B once and writing C
       once at the read bandwidth then takes longer than the arithmetic, and that time is the
       ceiling (the roofline's lower arm). */
    if (ceilings != NULL) {
        const double element = input == INPUT_BF16 ? 2.0 : 4.0;
        const double bytes = element * ((double)m * k + (double)k * n) + 4.0 * m * (double)n;
        const double memory_bound = report->work / bytes * ceilings->read_gbps * 1e9 / 1e12;
        if (memory_bound < report->ceiling) {
            report->ceiling = memory_bound;
            report->ceiling_name = "read bandwidth";
        }
    }
    free(a);
    free(b);
    free(c);

    CL_CUDA_CHECK(cudaFree(d_a));
    CL_CUDA_CHECK(cudaFree(d_b));
    CL_CUDA_CHECK(cudaFree(d_c));
    CL_CUDA_CHECK(cudaFree(workspace));
    return cl_bench_finish(&bench);
}
