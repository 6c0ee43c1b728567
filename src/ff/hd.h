/* ZKPIPE_HD marks arithmetic that is compiled for both the host and the GPU: field and curve
 * code is written once, in the common subset of C11 and C++, and nvcc builds the same text
 * into kernels. */
#ifndef ZKPIPE_FF_HD_H
#define ZKPIPE_FF_HD_H

#if defined(__CUDACC__)
#define ZKPIPE_HD static __host__ __device__ __forceinline__
#else
#define ZKPIPE_HD static inline
#endif

/* For large composite functions (tower multiplications, exponentiations): device code calls
 * them instead of inlining them. Inlining a whole Fq12 multiplication (54 Montgomery products)
 * into one kernel makes ptxas run for minutes; as calls, each level compiles once. */
#if defined(__CUDACC__)
#define ZKPIPE_HD_OUTLINED static inline __host__ __device__ __noinline__
#else
#define ZKPIPE_HD_OUTLINED static inline
#endif

#endif
