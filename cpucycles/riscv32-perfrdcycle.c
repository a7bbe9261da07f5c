/* riscv32: see riscv-perfrdcycle.h */
#include "riscv-perfrdcycle.h"
