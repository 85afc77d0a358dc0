/* scn_both.h — `hcasim run --engine both` (docs/scenarios.md "Two engines"):
 * two whole devices run one scenario side by side, op by op, each recording
 * what every op observed; the recordings are compared op by op (the first
 * difference is the divergence) and the work requests' post-to-CQE latencies
 * of the two are set against each other.
 *
 * The recording and its comparison are plain data, so a test can build two
 * recordings by hand (scn_rec_add…) and check what scn_rec_compare and
 * scn_latency make of them.
 */
#ifndef SCN_BOTH_H
#define SCN_BOTH_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One thing an op observed: a value (compared as text) or bytes read. */
typedef struct scn_obs {
    unsigned line;  /**< the op's line; 0: the end of the run */
    char *op;       /**< the op's name ("end of run" for line 0) */
    char *field;    /**< what: "outcome", "completion 1 of 2: status", "MPT[1] of m0: key", … */
    char *value;    /**< compared; NULL for bytes */
    char *detail;   /**< shown after the value, never compared (a failure's reason), or NULL */
    uint8_t *bytes; /**< check_mem: the bytes read (value NULL) */
    size_t nbytes;
    char *buf;      /**< bytes: the buffer's name and the offset of bytes[0] in it */
    uint64_t offset;
} scn_obs_t;

/** One posted work request's timing (for the latency comparison). */
typedef struct scn_rec_wr {
    unsigned line; /**< the line that posted it */
    char *qp, *opcode;
    uint64_t wr_id;
    int done; /**< its CQE was taken */
    uint64_t post_cycle, completion_cycle;
} scn_rec_wr_t;

/** What one engine's run observed, in op order. */
typedef struct scn_rec {
    scn_obs_t *obs;
    size_t nobs, capobs;
    scn_rec_wr_t *wrs;
    size_t nwrs, capwrs;
    int oom; /**< an allocation failed: the recording lacks something */
} scn_rec_t;

/** Append a value (detail may be NULL). 0, or -ENOMEM (and r->oom set). */
int scn_rec_add(scn_rec_t *r, unsigned line, const char *op, const char *field, const char *value,
                const char *detail);
/** Append bytes read from buffer buf at offset (field names what they are). 0 or -ENOMEM. */
int scn_rec_add_bytes(scn_rec_t *r, unsigned line, const char *op, const char *field, const char *buf,
                      uint64_t offset, const uint8_t *bytes, size_t n);
/** Append a work request's timing (done 0: no completion taken). 0 or -ENOMEM. */
int scn_rec_add_wr(scn_rec_t *r, unsigned line, const char *qp, const char *opcode, uint64_t wr_id, int done,
                   uint64_t post_cycle, uint64_t completion_cycle);
void scn_rec_free(scn_rec_t *r);

/** The first functional difference of two recordings. */
typedef struct scn_divergence {
    unsigned line; /**< 0: at the end of the run */
    char op[32];
    char field[160];
    char a[256], b[256]; /**< the value each engine observed (a: the reference, rtl) */
} scn_divergence_t;

/** Compare a->obs[from_a..] with b->obs[from_b..] in order: 1 and *d at the
 *  first difference, else 0. Values are compared as text, bytes byte by byte
 *  (the field then names the first differing byte); details are not compared.
 *  Where one engine observed a field the other did not (they took different
 *  paths through an op), the op's differing outcome is the divergence when
 *  there is one, else the lone field. A recording that ends first diverges
 *  from one that goes on. */
int scn_rec_compare(const scn_rec_t *a, size_t from_a, const scn_rec_t *b, size_t from_b, scn_divergence_t *d);

/** Median, p95 (nearest rank: the ceil(0.95 n)-th smallest) and max of
 *  v[0..n) (sorted in place); 0 for all when n is 0. Median of an even count:
 *  the mean of the two middle values. */
void scn_stats(double *v, size_t n, double *median, double *p95, double *max);

/** One work request of both runs: its latency (post to CQE, cycles) on each. */
typedef struct scn_lat_wr {
    const scn_rec_wr_t *wr; /**< a's record */
    int both;               /**< completed on both engines: a, b and err are set */
    uint64_t a, b;
    double err; /**< (b - a) / a, in percent (a 0 counts as 1) */
} scn_lat_wr_t;

/** The latency comparison: per work request, and |err| statistics over those
 *  completed on both. */
typedef struct scn_lat {
    scn_lat_wr_t *wrs; /**< one per WR posted by both runs, in post order */
    size_t nwrs;
    size_t count;                /**< WRs completed on both */
    double median, p95, max;     /**< of |err|, percent */
    long worst;                  /**< index in wrs of the largest |err|, -1: none */
} scn_lat_t;

/** Pair the WRs of a and b by post order (a pair must agree on line and wr_id;
 *  pairing stops at the first that does not) and compare their latencies.
 *  0 or -ENOMEM. */
int scn_latency(const scn_rec_t *a, const scn_rec_t *b, scn_lat_t *out);
void scn_lat_free(scn_lat_t *l);

/** Run s side by side on two devices: a (the reference, "rtl" in the JSON
 *  result) and b (the one checked against it, "model"), each with its own
 *  options' engine, seed and firmware; everything else (output, -v, --json,
 *  --trace, --fw-profile) is a's and applies to a's run only. scn_run with
 *  SCN_ENGINE_BOTH is this with a's engine RTL and b's MODEL. Tests pass the
 *  same engine twice (rtl against rtl: no divergence, 0% latency error; the
 *  second is then labelled "rtl#2"), or another seed on one side to make the
 *  engines diverge. SCN_PASS, SCN_FAIL (a failure on either engine, or a
 *  divergence) or SCN_ERROR (either could not run the file). */
int scn_run_pair(const scn_t *s, const scn_run_opts_t *a, const scn_run_opts_t *b);

/** scn_run_pair watched for a's --waves-on-fail and --trace-when (scn_waves.c,
 *  docs/waves.md): a's run is the reference whose events count; a failure or
 *  divergence of the pair is re-run traced on a's engine (lockstep, else rtl)
 *  with a's seed and firmware. */
int scn_run_pair_watched(const scn_t *s, const scn_run_opts_t *a, const scn_run_opts_t *b);

/** Run s on o's engine alone, stopping at the first failure, and record what
 *  every op observed into rec (what one side of scn_run_pair records); only
 *  -v lines are printed. SCN_PASS, SCN_FAIL or SCN_ERROR. */
int scn_record(const scn_t *s, const scn_run_opts_t *o, scn_rec_t *rec);

#ifdef __cplusplus
}
#endif
#endif /* SCN_BOTH_H */
