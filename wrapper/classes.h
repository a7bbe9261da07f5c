/* The closed vocabulary of ticks_setup() results (SPEC 2). */
#ifndef CPUCYCLES_CLASSES_H
#define CPUCYCLES_CLASSES_H

#define CPUCYCLES_SKIP 0              /* not usable here */
#define CPUCYCLES_CYCLECOUNTER (-1)   /* hardware core-cycle counter, 64 bits */
#define CPUCYCLES_MAYBECYCLECOUNTER (-2) /* perhaps off-core (TSC, rate unknown) */
#define CPUCYCLES_FINDMULTIPLIER (-3) /* off-core clock, rate to be measured */
#define CPUCYCLES_EXTEND32 (-4)       /* core-cycle counter, only 32 bits */
/* > 0: an off-core clock with that many ticks per second */

#endif
