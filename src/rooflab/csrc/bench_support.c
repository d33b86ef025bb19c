/* Support for the code rooflab generates around a user's kernel (the timing wrapper and the profiling driver).
 * It lives in its own translation unit, so that the generated code includes no header at all: a user's parameter
 * may then be called anything C allows (time, size_t is not, but clock, NULL, malloc, i, r, ...) without meeting
 * a macro or a declaration of ours. Every name here starts with rooflab_, which a kernel spec may not use. */
#include <stdio.h>
#include <stdlib.h>
#include "rl_timer.h"

double rooflab_now(void) { return rl_now(); }

/* bytes rounded up to whole cache lines, 64-byte aligned; the driver fills it (rooflab_load) */
void *rooflab_alloc(unsigned long bytes) { return aligned_alloc(64, ((bytes + 63) / 64) * 64 + 64); }

/* the driver's array contents, as the worker made them, read from a file rooflab wrote: 0 when all were read */
int rooflab_load(const char *path, void *dst, unsigned long bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    unsigned long got = bytes ? (unsigned long)fread(dst, 1, bytes, f) : 0;
    fclose(f);
    return got != bytes;
}
