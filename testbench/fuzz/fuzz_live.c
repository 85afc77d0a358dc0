/* fuzz_live.c — see fuzz_live.h. */
#include "fuzz_live.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_syms.h"

#define WORDS (HCA_FW_RAM_SIZE / 4)

/* libFuzzer reads counters from this section as coverage (extra counters). */
__attribute__((section("__libfuzzer_extra_counters"))) static uint8_t fw_words_hit[WORDS];
/* The profile as the last input left it; stale after a device was opened. */
static uint64_t prof_before[WORDS];
static int prof_stale = 1;
/* Words of RAM holding code (the image's functions): the only ones the
 * profile can count; the rest (data, tables, stack) need no scan per input. */
static size_t code_words = WORDS;
/* Totals over every device the process opened, printed at exit. */
static struct {
    const char *engine;
    uint64_t devices, cycles, skipped, instret;
} totals;

void fuzz_die(const char *what, int rc)
{
    fprintf(stderr, "fuzz: %s: %d (%s)\n", what, rc, rc < 0 ? strerror(-rc) : "");
    abort();
}

static void live_add(const fuzz_live_t *l)
{
    totals.engine = hca_dev_engine_name(l->dev);
    totals.devices++;
    totals.cycles += hca_dev_cycle(l->dev);
    totals.skipped += hca_dev_skipped_cycles(l->dev);
    totals.instret += hca_dev_fw_instret(l->dev);
}

static const fuzz_live_t *live_open;

/* What the inputs cost the device: a line in the fuzzer's log at exit. */
static void live_report(void)
{
    if (live_open) {
        live_add(live_open);
        live_open = NULL;
    }
    if (totals.devices)
        fprintf(stderr,
                "fuzz live device: %s engine, %" PRIu64 " device(s), %" PRIu64 " cycles (%" PRIu64
                " skipped as quiet or run ahead), %" PRIu64 " firmware instructions\n",
                totals.engine, totals.devices, totals.cycles, totals.skipped, totals.instret);
}

void fuzz_live_open(fuzz_live_t *l)
{
    static int reported;
    if (!reported++)
        atexit(live_report);
    const char *e = getenv("HCASIM_FUZZ_ENGINE");
    hca_dev_config_t cfg = {.engine = e && !strcmp(e, "rtl") ? DEV_ENGINE_RTL : DEV_ENGINE_MODEL};
    char err[512];
    int rc;
    if ((rc = hostmem_create(&l->mem)))
        fuzz_die("hostmem_create", rc);
    if ((rc = hca_dev_create(&l->dev, &cfg, l->mem, err, sizeof err))) {
        fprintf(stderr, "%s\n", err);
        fuzz_die("hca_dev_create", rc);
    }
    l->host = hca_dev_host(l->dev);
    if ((rc = hcadrv_open(&l->drv, &l->host)))
        fuzz_die("hcadrv_open", rc);
    hcadrv_device_attr_t attr;
    if ((rc = hcadrv_query_device(l->drv, &attr)))
        fuzz_die("boot: QUERY_DEVICE", rc);
    if ((rc = hca_dev_fw_profile_start(l->dev)))
        fuzz_die("hca_dev_fw_profile_start", rc);
    prof_stale = 1;
    live_open = l;
    elf_func_t *f;
    size_t n;
    if (!elf_read_functions(hca_dev_firmware(l->dev), &f, &n)) {
        size_t end = 0;
        for (size_t i = 0; i < n; i++)
            if (f[i].addr >= HCA_FW_RAM_BASE && (f[i].addr - HCA_FW_RAM_BASE + f[i].size + 3) / 4 > end)
                end = (f[i].addr - HCA_FW_RAM_BASE + f[i].size + 3) / 4;
        code_words = end && end < WORDS ? end : WORDS;
        free(f);
    }
}

void fuzz_live_close(fuzz_live_t *l)
{
    if (live_open == l) {
        live_add(l);
        live_open = NULL;
    }
    hcadrv_close(l->drv);
    hca_dev_destroy(l->dev);
    hostmem_destroy(l->mem);
    memset(l, 0, sizeof *l);
}

void fuzz_live_check(const fuzz_live_t *l, const char *after)
{
    char why[600];
    if (hca_dev_fw_health(l->dev, why, sizeof why)) {
        fprintf(stderr, "the firmware stopped %s: %s\nconsole:\n%s\n", after, why, hca_dev_console(l->dev));
        abort();
    }
    uint64_t n = hca_dev_violations(l->dev, why, sizeof why);
    if (n) {
        fprintf(stderr, "protection checker: %" PRIu64 " breach(es) %s: %s\n", n, after, why);
        abort();
    }
}

/* Only the device runs between an input's end and the next one's begin when
 * a harness (re)opened it: otherwise the snapshot cov_end left still holds. */
void fuzz_fw_cov_begin(const fuzz_live_t *l)
{
    if (!prof_stale)
        return;
    size_t words;
    const uint64_t *prof = hca_dev_fw_profile(l->dev, &words);
    memcpy(prof_before, prof, (words < WORDS ? words : WORDS) * sizeof *prof);
    prof_stale = 0;
}

/* Not instrumented: this loop over every word, once per input, is the
 * harness's, not code under test, and its comparisons would be traced. */
__attribute__((no_sanitize("coverage"))) void fuzz_fw_cov_end(const fuzz_live_t *l)
{
    size_t words;
    const uint64_t *prof = hca_dev_fw_profile(l->dev, &words);
    for (size_t i = 0; i < words && i < code_words; i++)
        if (prof[i] != prof_before[i]) {
            fw_words_hit[i] = 1;
            prof_before[i] = prof[i];
        }
}
