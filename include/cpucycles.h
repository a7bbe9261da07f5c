/* libcpucycles: count CPU cycles.  See doc/api.md.
   SPDX-License-Identifier: LicenseRef-PD-hp OR CC0-1.0 OR 0BSD OR MIT-0 OR MIT */
#ifndef CPUCYCLES_H
#define CPUCYCLES_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CPUCYCLES_API __attribute__((visibility("default")))
#else
#define CPUCYCLES_API
#endif

/* A function pointer, not a function: the first call picks a counter. */
extern CPUCYCLES_API long long (*cpucycles)(void);

extern CPUCYCLES_API long long cpucycles_persecond(void);
extern CPUCYCLES_API const char *cpucycles_implementation(void);
extern CPUCYCLES_API const char *cpucycles_version(void);
extern CPUCYCLES_API void cpucycles_tracesetup(void);

#ifdef __cplusplus
}
#endif

#endif
