/* scenario.h — scenario files (/work/shared/design/SCENARIO.md, docs/scenarios.md):
 * load and validate a .jsonl file completely, then run it against the device
 * (hca_dev + hostmem + the reference driver) on one engine.
 *
 * Exit-code contract (what `hcasim run` returns):
 *   SCN_PASS  (0) every expectation held, no invariant broke;
 *   SCN_FAIL  (1) a mismatch or a broken invariant: "FILE:LINE: op NAME: expected …, got …";
 *   SCN_ERROR (2) the file could not be run: "FILE:LINE: reason" (unreadable,
 *                 not JSON, unknown op or field, wrong type, unbound name, an op
 *                 the device does not serve yet...).
 * The run stops at the first mismatch.
 */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dev_engine.h"
#include "hca_dev.h"
#include "hca_host.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SCN_PASS = 0, SCN_FAIL = 1, SCN_ERROR = 2 };

typedef struct scn scn_t;

/** Read and validate a scenario file: every line parsed, every op's fields,
 *  types, enum names and name bindings checked, before anything runs.
 *  SCN_PASS and *out set, or SCN_ERROR with "FILE:LINE: reason" in err. */
int scn_load(const char *path, scn_t **out, char *err, size_t errlen);
/** The same over text in memory; name is used in messages as the file name. */
int scn_load_text(const char *name, const char *text, size_t len, scn_t **out, char *err, size_t errlen);
void scn_free(scn_t *s);
/** Ops in the file (comment and blank lines excluded). */
size_t scn_op_count(const scn_t *s);

/** The device engine a run uses (dev_engine.h's kinds), or both side by side. */
typedef enum scn_engine {
    SCN_ENGINE_RTL = DEV_ENGINE_RTL,
    SCN_ENGINE_MODEL = DEV_ENGINE_MODEL,
    SCN_ENGINE_LOCKSTEP = DEV_ENGINE_LOCKSTEP, /**< one device, RTL and model compared at the pins */
    SCN_ENGINE_BOTH = DEV_ENGINE_KINDS,
} scn_engine_t;

/** What --trace-when watches for (docs/waves.md). */
typedef enum scn_when_kind {
    SCN_WHEN_KEY,    /**< a DMA, packet or validity change through key value */
    SCN_WHEN_MPT,    /**< ... through a key of MPT index value */
    SCN_WHEN_QP,     /**< a DMA, packet or fence of QP number value (or of the QP named name) */
    SCN_WHEN_MR,     /**< as MPT, of the MPT index of the MR named name (its keys, whatever their key byte) */
    SCN_WHEN_LINE,   /**< the op of scenario line value runs */
    SCN_WHEN_BREACH, /**< the protection checker records a breach */
} scn_when_kind_t;

/** One --trace-when EXPR[@BEFORE[:AFTER]]: a window around each hit. */
typedef struct scn_trace_when {
    scn_when_kind_t kind;
    uint64_t value;
    char name[32];          /**< qp=NAME, mr=NAME: the scenario's name ("" : by value) */
    uint64_t before, after; /**< cycles traced around a hit */
    int window_set;         /**< 1: its own @BEFORE:AFTER, else --waves-window's */
} scn_trace_when_t;

/** --trace-when triggers a run takes. */
#define SCN_MAX_TRACE_WHEN 16
/** --waves-window's default: cycles before and after what a window covers. */
#define SCN_WAVES_BEFORE_DEFAULT 5000u
#define SCN_WAVES_AFTER_DEFAULT 500u
/** --waves-on-fail's directory when none is given. */
#define SCN_WAVES_DIR_DEFAULT "hcasim-waves"

typedef struct scn_watch scn_watch_t; /* scn_waves.c */

typedef struct scn_run_opts {
    scn_engine_t engine;
    int seed_set;         /**< 1: seed overrides the scenario's */
    uint64_t seed;
    const char *firmware; /**< NULL: the image make builds */
    const char *json_out; /**< NULL: no JSON result */
    const char *trace;    /**< NULL: no waves; else an FST path (RTL only) */
    uint64_t trace_from, trace_to; /**< device cycles; trace_to 0: end of run */
    const char *fw_profile; /**< NULL: none; else a path for the firmware's cycles per function */
    const char *peer_stats; /**< NULL: none; else a directory for DIR/memory_peers/<client>/<counter> */
    const char *waves_dir; /**< --waves-on-fail[=DIR]: NULL: off */
    uint64_t waves_before, waves_after; /**< --waves-window (0, 0: the defaults) */
    int waves_window_set;
    scn_trace_when_t when[SCN_MAX_TRACE_WHEN]; /**< --trace-when, into --trace's file */
    size_t nwhen;
    /* set by the runner itself (scn_waves.c), never by a command line */
    scn_watch_t *watch;         /**< what this run records for waves, NULL: nothing */
    const uint64_t *trace_spans; /**< a traced re-run: its windows (trace_spans pairs), NULL: trace_from/to */
    size_t ntrace_spans;
    uint64_t run_on_to;         /**< a traced re-run: after its last op, run on to this cycle */
    int verbose;          /**< 1: one line per op */
    FILE *out;            /**< progress and summary; NULL: stdout */
    FILE *err;            /**< "FILE:LINE: …" diagnostics; NULL: stderr */
} scn_run_opts_t;

/** A command line's number (decimal, 0x hex, 0 octal; no sign): 0, or -1. */
int scn_parse_u64(const char *s, uint64_t *out);
/** The run option at argv[*i] (-v, --engine, --seed, --json, --trace,
 *  --trace-from, --trace-to, --firmware, --fw-profile, --peer-stats; `hcasim
 *  run --help` says what each does) into o, *i moved past its value: 1. 0:
 *  not one of them. -1: a bad or missing value, the reason in err ("--seed
 *  abc: expected a number"). */
int scn_parse_run_option(int argc, char **argv, int *i, scn_run_opts_t *o, char *err, size_t errlen);

/** Run a loaded scenario. SCN_PASS, SCN_FAIL or SCN_ERROR; the reason goes to
 *  opts->err, the JSON result (when asked) to opts->json_out in every case. */
int scn_run(const scn_t *s, const scn_run_opts_t *opts);

/** Check a run's command-line paths before anything runs: --json and
 *  --fw-profile must be writable (each is created, empty). 0, or SCN_ERROR with
 *  "--OPTION PATH: reason" in err. scn_run calls it first. */
int scn_check_opts(const scn_run_opts_t *opts, char *err, size_t errlen);

/** A device the caller built and runs (a virtual platform's, hcasim-vp): the
 *  runner reaches it as the driver does, through host (MMIO, memory, time),
 *  and reads what only the device knows (its event log for CQE arrivals, the
 *  protection checker, the firmware's health, peer windows) from dev. */
typedef struct scn_target {
    hca_host_t host;
    hca_dev_t *dev;
    /** 0: the device moves only inside host.wait (in process), so quiet
     *  cycles are skipped exactly; else it runs on its own clock and a wait
     *  for CQEs looks every wait_cycles cycles. */
    uint64_t wait_cycles;
    /** dev NULL: why the caller could not build it (hca_dev_create's
     *  reason); the run fails at the first op that needs the device, as
     *  scn_run's would. */
    const char *error;
} scn_target_t;

/** The configuration s's `device` op asks for, on engine (rtl or model), for
 *  a caller who builds the device itself before scn_run_on. SCN_PASS, or
 *  SCN_ERROR with "FILE:LINE: reason" in err. */
int scn_device_config(const scn_t *s, const scn_run_opts_t *opts, scn_engine_t engine, hca_dev_config_t *cfg,
                      char *err, size_t errlen);
/** Run s on the caller's device t (built with scn_device_config's
 *  configuration on engine), printing what scn_run prints. Options that need a
 *  device of the runner's own (--engine both/lockstep) are not taken here. The
 *  driver is closed and the device left running at the end. */
int scn_run_on(const scn_t *s, const scn_run_opts_t *opts, scn_engine_t engine, const scn_target_t *t);

/** A file the build and an install put beside the executable,
 *  <exe dir>/../share/hcasim/NAME, into out; fallback (the source tree's
 *  path) when it is not there. */
void scn_share_path(char *out, size_t len, const char *name, const char *fallback);

/** Write the JSON result of a scenario that could not be loaded (result
 *  "error", failure line taken from msg's "FILE:LINE:" prefix). 0 or -errno. */
int scn_write_load_error_json(const char *json_out, const char *file, const char *msg, scn_engine_t engine);

#ifdef __cplusplus
}
#endif
#endif /* SCENARIO_H */
