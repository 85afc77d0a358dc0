/* fuzz_live.c — see fuzz_live.h. */
#include "fuzz_live.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS (HCA_FW_RAM_SIZE / 4)

/* libFuzzer reads counters from this section as coverage (extra counters). */
__attribute__((section("__libfuzzer_extra_counters"))) static uint8_t fw_words_hit[WORDS];
static uint64_t prof_before[WORDS];

void fuzz_die(const char *what, int rc)
{
    fprintf(stderr, "fuzz: %s: %d (%s)\n", what, rc, rc < 0 ? strerror(-rc) : "");
    abort();
}

void fuzz_live_open(fuzz_live_t *l)
{
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
}

void fuzz_live_close(fuzz_live_t *l)
{
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

void fuzz_fw_cov_begin(const fuzz_live_t *l)
{
    size_t words;
    const uint64_t *prof = hca_dev_fw_profile(l->dev, &words);
    memcpy(prof_before, prof, (words < WORDS ? words : WORDS) * sizeof *prof);
}

void fuzz_fw_cov_end(const fuzz_live_t *l)
{
    size_t words;
    const uint64_t *prof = hca_dev_fw_profile(l->dev, &words);
    for (size_t i = 0; i < words && i < WORDS; i++)
        if (prof[i] != prof_before[i])
            fw_words_hit[i] = 1;
}
