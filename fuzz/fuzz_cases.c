/* libFuzzer harness for the .cases runner (parser and every case kind): any
 * text must be processed without a crash, a sanitizer report, a hang or an
 * abort; malformed lines are counted as failures. Seeds: fuzz/corpus_cases/
 * (replayed by tests/algebra/test_fuzz_replay.c, with fuzz/regress_cases/).
 *
 *   build-fuzz/fuzz/fuzz_cases -max_total_time=60 /tmp/cases-corpus fuzz/corpus_cases
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symshape/symshape.h"
#include "fuzz_budget.h"

/* The tests replay the seeds through this same function under another name. */
#ifndef SY_FUZZ_ENTRY
#define SY_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif
int SY_FUZZ_ENTRY(const uint8_t *data, size_t size);

int SY_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    if (size > 8192) return 0;
    sy_ctx *c = NULL;
    if (fz_ctx_new(&c) != SY_OK) return 0;
    sy_cases_options o;
    memset(&o, 0, sizeof o);
    o.samples = 16;
    sy_cases_result r;
    memset(&r, 0, sizeof r);
    sy_status st = sy_cases_run_text(c, (const char *)data, size, "fuzz.cases", &o, &r);
    if (st != SY_OK && st != SY_ENOMEM) abort();
    sy_ctx_free(c);
    return 0;
}
