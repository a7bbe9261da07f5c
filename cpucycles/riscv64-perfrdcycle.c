/* riscv64: see riscv-perfrdcycle.h */
#include "riscv-perfrdcycle.h"
