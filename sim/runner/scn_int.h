/* scn_int.h — what the files of the scenario runner share (scenario.h is
 * the public API).
 *
 *   scn_schema.c     the ops, their handlers and their fields, as one table
 *   scn_diag.c       error reporting: the reasons of failing ops and unloadable files
 *   scn_fields.c     schema-driven field checks, the readers of scalar fields
 *   scn_names.c      bound names, key references, SGE lists, buffer ranges
 *   scn_load.c       reading a file and the validation pass
 *   scn_run.c        one engine's run, op by op: device start and teardown, time, completions
 *   scn_result.c     text and JSON results, the --fw-profile writer
 *   scn_observe.c    what each op observed, recorded for --engine both
 *   scn_rec.c        recordings, their comparison, latency statistics (scn_both.h)
 *   scn_both.c       --engine both: two engines op by op, the comparison's report
 *   scn_ops_*.c      one handler per op, by family
 *
 * Every op has one handler that serves both passes: in the validation pass
 * (c->run == NULL) it reads and checks every field and binds the names the op
 * creates, then returns before doing anything; in the run pass it reads the
 * same fields through the same readers (they cannot fail any more) and acts.
 * So what is validated is exactly what runs.
 *
 * Which fields an op (or a nested object) takes, which it requires and of
 * which kind each is, is the schema of scn_schema.c: the readers look each
 * field up there (a missing required field is reported by the reader, in the
 * order the handler reads), and the unknown-field check walks it.
 *
 * The device, host memory and driver are reached through scn_run.c: the
 * handlers call the driver for their own op (hcadrv_*) and the scn_mem_*,
 * scn_cycle, scn_advance and CQ helpers below for the rest.
 */
#ifndef SCN_INT_H
#define SCN_INT_H

#include <stdint.h>

#include "hca_dev.h"
#include "hcadrv.h"
#include "hcadrv_peer.h"
#include "peermem.h"
#include "json.h"
#include "scenario.h"
#include "scn_both.h"

/** Longest SGE list a scenario may write (the driver refuses more than it serves). */
#define SCN_MAX_SGES 16u
/** Room for the prefix of nested field names ("sge[1]."). */
#define SCN_PATH_MAX 96

/* Kinds of names a scenario binds. */
typedef enum sym_kind { SYM_PD = 0, SYM_CQ, SYM_QP, SYM_BUF, SYM_MR, SYM_PL, SYM_CLIENT, SYM_KINDS } sym_kind_t;

/** A bound name: what validation knows about it. */
typedef struct sym {
    char *name;
    sym_kind_t kind;
    unsigned line;  /**< where it was bound */
    uint64_t size;  /**< buf: bytes; pl: entries */
    int peer;       /**< buf: in a peer's memory */
    unsigned freed; /**< pl: line of its free_fast_reg_page_list (validation), 0 */
} sym_t;

/** A name's object during a run. */
typedef struct rt_obj {
    int live; /**< the op that binds it ran and succeeded */
    uint32_t pd;
    hcadrv_cq_t cq;
    uint64_t *seen_cycle; /**< cq: arrival cycle of the CQE at each ring slot */
    uint32_t seen;        /**< cq: CQEs seen past the driver's consumer index */
    hcadrv_qp_t qp;
    uint64_t addr, size; /**< buf, pl (size: the entries asked for) */
    hcadrv_mr_t mr;
    hcadrv_page_list_t pl; /**< pl: the driver's page list */
    peermem_t *pm;              /**< client: the peer device's memory (its bus window) */
    hcadrv_peer_window_t *win;  /**< client: its peer memory client, registered with the driver */
    uint64_t page_size;         /**< client: its page size */
    int revoked;                /**< buf (peer): taken back by peer_invalidate since its last registration */
    /** pd, cq, qp: destroyed (dealloc_pd, destroy_cq, destroy_qp succeeded). Its
     *  number in the handle is 0 from then on, which the driver and device
     *  refuse, so a later use of the name is an error and never reaches an
     *  object that took the number again; number_was keeps it for reports
     *  and CQE matching. */
    int destroyed;
    uint32_t number_was;
} rt_obj_t;

/** One posted work request, for latencies and the JSON result. */
typedef struct wr_rec {
    unsigned line;
    int qp; /**< symbol id */
    int recv;
    uint64_t wr_id;
    const char *opcode; /**< wr_opcode name, "RECV" or "RAW" */
    uint32_t index;     /**< SQ/RQ index of its WQE */
    uint64_t post_cycle, completion_cycle;
    int done;
    unsigned status;
} wr_rec_t;

typedef struct run run_t; /* the run state (scn_run.c) */
typedef struct scn_cover scn_cover_t; /* functional coverage of a run (scn_cover.c) */

typedef struct op_line {
    unsigned line;
    int op; /**< index into scn_ops */
    json_doc_t *doc;
    const json_value_t *v;
} op_line_t;

struct scn {
    char *file;
    op_line_t *ops;
    size_t nops;
    sym_t *syms;
    size_t nsyms, capsyms;
    int *hash; /**< open addressing over syms: -1 empty */
    size_t hashcap;
};

/* ================================================================ the schema (scn_schema.c) */

/** What a field holds; also what "missing (…)" says when a required one is absent. */
typedef enum scn_kind {
    K_INT,    /**< integer: JSON integer, "0x…" or decimal string */
    K_BOOL,   /**< true or false */
    K_HEX,    /**< bytes as a string of hex digits */
    K_ERRNO,  /**< an errno name: "OK", "EINVAL", … */
    K_CHOICE, /**< one of the names the handler lists */
    K_FILL,   /**< "zero", "random", "pattern" or "byte:0xNN" */
    K_ENUM,   /**< a name of an ABI enum */
    K_FLAGS,  /**< a list of ABI flag names */
    K_BIND,   /**< a new name, of kind .sym */
    K_NAME,   /**< a name bound earlier, of kind .sym */
    K_KEY,    /**< a key reference: {"mr":M}, {"mr":M,"key":BYTE} or an integer */
    K_SGES,   /**< a list of SGEs */
    K_OBJECT, /**< an object of .sub's fields */
    K_LIST,   /**< a list of .sub objects, or of integers when .sub is NULL */
    K_KINDS
} scn_kind_t;

typedef struct scn_schema scn_schema_t;

/** One field an op or a nested object takes. */
typedef struct scn_field {
    const char *name;            /**< NULL ends a list */
    unsigned char req;           /**< 1: required */
    unsigned char kind;          /**< scn_kind_t */
    unsigned char sym;           /**< K_BIND, K_NAME: the sym_kind_t it names */
    const char *missing;         /**< what "missing (…)" says, when not the kind's */
    const scn_schema_t *sub;     /**< K_OBJECT, K_LIST, K_KEY, K_SGES: the nested object's fields */
} scn_field_t;

/** Fields that only some values of a field take (post_send per opcode,
 *  alloc_mr per type), or one form of a nested object (an SGE by mr, buf or addr). */
typedef struct scn_variant {
    const char *name;          /**< the value that picks it ("SEND", "fast_reg"), or the form's key ("mr") */
    const scn_field_t *fields; /**< ended by a NULL name */
} scn_variant_t;

/** The fields of an op or of a nested object. */
struct scn_schema {
    const scn_field_t *fields;     /**< every variant takes these; ended by a NULL name */
    const scn_variant_t *variants; /**< NULL, or nvariants sets, one of which the handler picks */
    unsigned nvariants;
    const char *chosen_by;         /**< the field whose value picks the variant, named when a field
                                        "does not apply to" it; NULL: the handler picks by the fields present */
    int refusal_lists;             /**< 1: that refusal lists what the picked variant takes */
};

/** Flags of an op. */
enum { SCN_OP_CONFIG = 1 /**< configures the device: only first in a file, runs before the device starts */ };

typedef struct ctx ctx_t;

typedef struct op_spec {
    const char *name;
    int (*fn)(ctx_t *c, const json_value_t *o);
    scn_schema_t schema;
    unsigned flags;
} op_spec_t;

extern const op_spec_t scn_ops[];
extern const size_t scn_nops;

/* The handlers of scn_ops[], by family. */
int scn_op_device(ctx_t *c, const json_value_t *o); /* scn_ops_setup.c */
int scn_op_alloc_pd(ctx_t *c, const json_value_t *o);
int scn_op_create_cq(ctx_t *c, const json_value_t *o);
int scn_op_create_qp(ctx_t *c, const json_value_t *o);
int scn_op_connect(ctx_t *c, const json_value_t *o);
int scn_op_modify_qp(ctx_t *c, const json_value_t *o);
int scn_op_destroy_qp(ctx_t *c, const json_value_t *o);
int scn_op_destroy_cq(ctx_t *c, const json_value_t *o);
int scn_op_dealloc_pd(ctx_t *c, const json_value_t *o);
/** A QP name's number: its QP's, or the one it had when destroyed. */
uint32_t scn_qpn(ctx_t *c, int id);
int scn_op_host_alloc(ctx_t *c, const json_value_t *o);
int scn_op_host_write(ctx_t *c, const json_value_t *o);
int scn_op_peer_client(ctx_t *c, const json_value_t *o); /* scn_ops_peer.c */
int scn_op_peer_alloc(ctx_t *c, const json_value_t *o);
int scn_op_peer_invalidate(ctx_t *c, const json_value_t *o);
int scn_op_peer_stats(ctx_t *c, const json_value_t *o);
int scn_op_peer_unregister(ctx_t *c, const json_value_t *o);
/** Fill buffer id (host or peer) as the "fill" field says. */
int scn_fill_buffer(ctx_t *c, int id, unsigned kind, uint8_t byte);
int scn_op_reg_mr(ctx_t *c, const json_value_t *o); /* scn_ops_mr.c */
int scn_op_get_dma_mr(ctx_t *c, const json_value_t *o);
int scn_op_alloc_mr(ctx_t *c, const json_value_t *o);
int scn_op_alloc_fast_reg_page_list(ctx_t *c, const json_value_t *o);
int scn_op_free_fast_reg_page_list(ctx_t *c, const json_value_t *o);
int scn_op_set_page_list(ctx_t *c, const json_value_t *o);
int scn_op_update_fast_reg_key(ctx_t *c, const json_value_t *o);
int scn_op_dereg_mr(ctx_t *c, const json_value_t *o);
int scn_op_post_send(ctx_t *c, const json_value_t *o); /* scn_ops_wr.c */
int scn_op_post_recv(ctx_t *c, const json_value_t *o);
int scn_op_post_raw_wqe(ctx_t *c, const json_value_t *o);
int scn_op_run(ctx_t *c, const json_value_t *o); /* scn_ops_cq.c */
int scn_op_poll_cq(ctx_t *c, const json_value_t *o);
int scn_op_expect_cq_empty(ctx_t *c, const json_value_t *o);
int scn_op_query_device(ctx_t *c, const json_value_t *o); /* scn_ops_check.c */
int scn_op_check_mem(ctx_t *c, const json_value_t *o);
int scn_op_check_mr(ctx_t *c, const json_value_t *o);
int scn_op_expect_qp_state(ctx_t *c, const json_value_t *o);
int scn_op_expect_counters(ctx_t *c, const json_value_t *o);
int scn_op_host_fill(ctx_t *c, const json_value_t *o);
int scn_fill_range(ctx_t *c, int id, uint64_t from, uint64_t len, unsigned kind, uint8_t byte);

/** Context of one op in either pass. */
struct ctx {
    scn_t *s;
    unsigned line;
    const char *op;
    run_t *run; /**< NULL in the validation pass */
    char msg[1024]; /**< the reason, without "FILE:LINE: " */
    char note[512]; /**< verbose/progress detail of a successful op */
    char path[SCN_PATH_MAX]; /**< prefix of nested field names, e.g. "sge[1]." */
    const scn_schema_t *schema; /**< the fields of the object being read */
    int variant;                /**< the variant of schema picked, -1: none yet */
};

/** True in the run pass (c in scope). */
#define RUNNING (c->run != NULL)

/** Set c up for op line l (either pass). */
void scn_ctx_op(ctx_t *c, const op_line_t *l);

/* ================================================================ diagnostics (scn_diag.c) */

/* Each returns the code to propagate. */
int scn_bad(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));                      /* 2 */
int scn_bad_field(ctx_t *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4))); /* 2 */
int scn_mismatch(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));                  /* 1 */
int scn_unavailable(ctx_t *c, const char *what, const char *feature);                                   /* 2 */
/** A failed device call: "not available" when the engine lacks the feature, else a mismatch. */
int scn_refused(ctx_t *c, int rc, const char *what);
/** rc (0 or -errno) against the errno the scenario expects: 0 or the mismatch. */
int scn_expect_rc(ctx_t *c, int rc, int want, const char *what);
void scn_note(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Fill "FILE:LINE: reason" (or "FILE: reason" when line is 0) into err; returns SCN_ERROR. */
int scn_load_error(char *err, size_t n, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/** " (did you mean "W"?)" for the closest of names[0..n) to w (edit distance <= 2), else "". */
void scn_suggest(const char *w, size_t wl, const char *const *names, size_t n, char *out, size_t outlen);

/* ================================================================ fields by the schema (scn_fields.c) */

/** Every field of o is one the current schema takes (any variant's, until one
 *  is picked; "op" too at the top level): else "unknown field" and a suggestion. */
int scn_fields_known(ctx_t *c, const json_value_t *o);
/** Pick variant v of the current schema. When the schema has chosen_by, a field
 *  of o that only other variants take "does not apply to" it. */
int scn_variant(ctx_t *c, const json_value_t *o, unsigned v);
/** Whether the current schema (its picked variant) takes field k. */
int scn_takes(ctx_t *c, const char *k);
/** The schema's row of field k (a bug, and the program stops, when it has none). */
const scn_field_t *scn_schema_field(ctx_t *c, const char *k);
/** Every field the current schema and its picked variant require is in o
 *  (in schema order): else "missing (…)". */
int scn_require(ctx_t *c, const json_value_t *o);
/** Field k of o, NULL when absent; then *rc is SCN_ERROR ("missing (…)") when
 *  the schema requires it, else 0. kind is what the caller reads it as: the
 *  schema must agree (a bug otherwise, and the program stops). */
const json_value_t *scn_field(ctx_t *c, const json_value_t *o, const char *k, scn_kind_t kind, int *rc);

/** Where scn_enter saves what it changes. */
typedef struct scn_frame {
    char path[SCN_PATH_MAX];
    const scn_schema_t *schema;
    int variant;
} scn_frame_t;
/** Read inside field k of the current object (entry idx of it when indexed):
 *  field names get the prefix "k." or "k[idx].", the schema becomes k's. */
void scn_enter(ctx_t *c, const char *k, size_t idx, int indexed, scn_frame_t *saved);
void scn_leave(ctx_t *c, const scn_frame_t *saved);
int scn_need_object(ctx_t *c, const json_value_t *v, const char *k);
/** Field k of o, an object: scn_field then scn_need_object (NULL and *rc on a
 *  refusal; NULL and *rc 0 when absent and optional). */
const json_value_t *scn_object_field(ctx_t *c, const json_value_t *o, const char *k, int *rc);
int scn_need_array(ctx_t *c, const json_value_t *v, const char *k, size_t min, size_t max);

/* ---- field readers: 0, or SCN_ERROR with the field named. A missing
 * optional field leaves *out untouched; whether a field is required is the
 * schema's. The _value forms read a value already in hand (list entries). */
int scn_int(ctx_t *c, const json_value_t *o, const char *k, uint64_t min, uint64_t max, uint64_t *out);
int scn_int_value(ctx_t *c, const json_value_t *v, const char *k, uint64_t min, uint64_t max, uint64_t *out);
int scn_bool(ctx_t *c, const json_value_t *o, const char *k, int *out);
/** A name among names[] (NULL-terminated). */
int scn_choice(ctx_t *c, const json_value_t *o, const char *k, const char *const *names, unsigned *out);
/** A name of an ABI enum (its generated name function, values 0..max). */
int scn_enum_value(ctx_t *c, const json_value_t *v, const char *k, const char *(*name)(unsigned), unsigned max,
                   unsigned *out);
int scn_enum(ctx_t *c, const json_value_t *o, const char *k, const char *(*name)(unsigned), unsigned max,
             unsigned *out);
/** A list of ABI flag names (the generated bit-name function, bits 0..width-1) -> mask. */
int scn_flags(ctx_t *c, const json_value_t *o, const char *k, const char *(*bit_name)(unsigned), unsigned width,
              uint32_t *out);
/** An errno name ("OK", "EINVAL", ...) -> 0 or -errno. */
int scn_errno(ctx_t *c, const json_value_t *o, const char *k, int *out);
const char *scn_errno_name(int neg_errno);
/** Hex digits (spaces and '_' may separate bytes) -> *bytes (malloc'd). */
int scn_hex(ctx_t *c, const json_value_t *o, const char *k, uint8_t **bytes, size_t *len);
/** A buffer fill: "zero" | "random" | "pattern" | "byte:0xAB" -> kind 0..3 and the byte. */
int scn_fill(ctx_t *c, const json_value_t *o, const char *k, unsigned *kind, uint8_t *byte);

/* ================================================================ names and references (scn_names.c) */

const char *scn_sym_kind_name(sym_kind_t k);
/** The symbol id of name, bound with this kind; -1 when none. */
int scn_sym_lookup(const scn_t *s, const char *name, sym_kind_t kind);
/** Bind a new name (validation; its kind is the schema's), or find it (run). */
int scn_bind(ctx_t *c, const json_value_t *o, const char *k, int *id);
/** A name bound earlier, of the kind the schema says. */
int scn_ref(ctx_t *c, const json_value_t *o, const char *k, int *id);
/** A page list that was not freed (validation) / that exists (run). */
int scn_pl_ref(ctx_t *c, const json_value_t *o, const char *k, int *id);
/** scn_ref of field k, then the op's expect_error (scn_errno). */
int scn_ref_errno(ctx_t *c, const json_value_t *o, const char *k, int *id, int *want);
/** The MR's key as the driver holds it (run); an MR whose creation failed has none. */
int scn_mr_key(ctx_t *c, int id, const char *k, uint32_t *key);
/** A key reference in hand: {"mr":"f0"}, {"mr":"f0","key":17}, or a raw integer. */
int scn_keyref_value(ctx_t *c, const json_value_t *v, const char *k, uint32_t *out);
int scn_keyref(ctx_t *c, const json_value_t *o, const char *k, uint32_t *out);
/** An SGE list; the first cap entries land in sge[], *n counts them all. */
int scn_sge_list(ctx_t *c, const json_value_t *o, const char *k, hca_sge_t *sge, unsigned cap, unsigned *n);
/** [off, +len) lies inside buffer id (its size as validation knows it). */
int scn_buf_range(ctx_t *c, int id, const char *k, uint64_t off, uint64_t len);

/* ================================================================ the run (scn_run.c) */

rt_obj_t *scn_obj(ctx_t *c, int id);
sym_t *scn_sym(ctx_t *c, int id);
hcadrv_t *scn_drv(ctx_t *c);
uint64_t scn_seed(ctx_t *c);
int scn_engine_is_model(ctx_t *c);
FILE *scn_out(ctx_t *c);
/** Device attributes (queried once, on first use). 0 or SCN_ERROR. */
int scn_attr(ctx_t *c, const hcadrv_device_attr_t **attr);
/** Record a device-level option of the `device` op for the device's creation.
 *  0, or SCN_ERROR when the option is not available. */
int scn_device_option(ctx_t *c, const char *key, uint64_t value);
/** The device's cycle. */
uint64_t scn_cycle(ctx_t *c);
/** The device (started). */
hca_dev_t *scn_dev(ctx_t *c);
/** The peer device's DMA timing the `device` op configured (peermem.h defaults otherwise). */
bus_timing_t scn_peer_timing(ctx_t *c);
/** Host memory: 0, or a negative errno (alloc) / nonzero (read, write).
 *  Reads and writes of a peer client's window go to that peer's memory. */
int scn_mem_alloc(ctx_t *c, uint64_t size, uint64_t align, uint64_t *addr);
int scn_mem_read(ctx_t *c, uint64_t addr, void *buf, uint64_t len);
int scn_mem_write(ctx_t *c, uint64_t addr, const void *buf, uint64_t len);
/** Advance device time by n cycles. CQEs arriving meanwhile are seen (with
 *  their arrival cycle) from the device's event log, whenever they come. */
void scn_advance(ctx_t *c, uint64_t n);
/** Advance time until CQ cq has n CQEs seen or timeout cycles passed; the CQEs seen. */
uint32_t scn_wait_cqes(ctx_t *c, int cq, uint32_t n, uint64_t timeout);
/** Take up to n seen CQEs of CQ cq from the driver: each one's arrival cycle in
 *  arrival[], the posted WR it completes (now done; NULL if none) in rec[].
 *  How many, or a negative errno. */
int scn_poll(ctx_t *c, int cq, int n, hcadrv_wc_t *wc, uint64_t *arrival, wr_rec_t **rec);
/** The latest send WR posted on qp (symbol id) with this wr_id, or NULL. */
const wr_rec_t *scn_wr_find(ctx_t *c, int qp, uint64_t wr_id);
/** Record a posted WR (its WQE at index, posted at cycle post_cycle). 0 or SCN_ERROR. */
int scn_posted(ctx_t *c, int qp, int recv, uint64_t wr_id, const char *opcode, uint32_t index, uint64_t post_cycle);
/** Symbol id of the QP with this number, -1 when none. */
int scn_qp_by_qpn(ctx_t *c, uint32_t qpn);
/** Prefix of this run's -v lines: "" with one engine, "rtl   " etc. with two. */
const char *scn_label(ctx_t *c);
/** Where this run records what its ops observe (--engine both), or NULL. */
scn_rec_t *scn_rec_of(ctx_t *c);

/* ================================================================ observations (scn_observe.c) */

/* What an op observed, recorded when the run records (--engine both; else
 * nothing is done): compared between the engines in the order recorded, so an
 * op records the same fields on every path that reaches the device alike. */
void scn_observe(ctx_t *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** The same with a detail shown on a divergence but not compared (NULL: none). */
void scn_observe_detail(ctx_t *c, const char *field, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** Bytes read from buffer sym at offset (check_mem). */
void scn_observe_bytes(ctx_t *c, const char *field, int sym, uint64_t offset, const uint8_t *b, size_t n);
/** Every field of a completion, named "PREFIX: wr_id" etc. */
void scn_observe_wc(ctx_t *c, const char *prefix, const hcadrv_wc_t *wc);
/** An MPT entry's fields, named "PREFIX: state" etc. */
void scn_observe_mpt(ctx_t *c, const char *prefix, const hca_mpt_entry_t *m);
/** The op's outcome: ok, MISMATCH or ERROR (its reason the detail). */
void scn_observe_outcome(ctx_t *c, int rc);

/* ================================================================ results (scn_result.c) */

const char *scn_engine_name(scn_engine_t e);

/** What the protection checker watched (SEMANTICS.md invariants). */
typedef struct scn_checker {
    uint64_t dma, dma_keyed, invalidations, registrations, write_pkts, breaches;
    /* the race counters (docs/scenarios.md "Counters"): the device's fence and
       DRAIN waits (dev_engine_stats_t), the checker's refusals after an
       invalidation (protcheck_stats_t.refused_after_inv) */
    uint64_t fence_waits, drain_waits, refused_after_inv;
} scn_checker_t;

/** The firmware's state after a failed run, for the diagnosis (-v). */
typedef struct scn_fw_state {
    const char *console;
    uint64_t instret, busy, cycles;
} scn_fw_state_t;

/** One peer client's counters, for the result. */
typedef struct scn_peer_report {
    const char *name, *version;
    hcadrv_peer_stats_t st;
} scn_peer_report_t;

/** How a run ended. */
typedef struct scn_report {
    const scn_t *s;
    const char *file;
    scn_engine_t engine;
    uint64_t seed, cycles;
    int result;            /**< SCN_PASS, SCN_FAIL, SCN_ERROR */
    unsigned line;         /**< of the failure */
    const char *op;        /**< the failing op, or NULL */
    const char *msg;       /**< the reason */
    const char *firmware;  /**< the image the device ran, or NULL: no device started */
    const scn_checker_t *checker; /**< NULL: no device ran */
    const scn_fw_state_t *fw;     /**< NULL: no firmware diagnosis */
    const wr_rec_t *wrs;
    size_t nwrs;
    int cmdline;           /**< the error is a command-line option's: no FILE:LINE */
    const scn_peer_report_t *peers; /**< each peer client's counters at the end */
    size_t npeers;
    const protcheck_t *pc; /**< the checker, for its breaches; NULL: no device ran */
    const scn_cover_t *cov; /**< the functional coverage points the run hit; NULL: none */
    /** The device's timing as it ran, defaults applied (the `device` op's
     *  fields of the same names); valid when a device ran (checker set). */
    bus_timing_t host;
    uint32_t link_latency, link_bytes_per_cycle;
} scn_report_t;

/** The reason (to err), the firmware diagnosis, the checker and summary lines (to out). */
void scn_print_report(const scn_report_t *r, FILE *out, FILE *err);
/** The firmware's state and the last lines of its console (-v after a failure). */
void scn_print_fw(FILE *out, const scn_fw_state_t *fw, const char *whose);
/** The checker line's counts, after prefix ("checker: "). */
void scn_print_checker(FILE *out, const char *prefix, const scn_checker_t *ck);
/** The "checker" object of the JSON result (null when ck is NULL). */
void scn_json_checker(FILE *f, const scn_checker_t *ck);
/** The "timing" object of the JSON result: r's host and link timing under
 *  the `device` op's field names (null when no device ran). */
void scn_json_timing(FILE *f, const scn_report_t *r);
/** The "failure" object of the JSON result (null when result is SCN_PASS). */
void scn_json_failure(FILE *f, int result, unsigned line, const char *op, const char *msg);
/** The "breaches" list of the JSON result: the checker's first ones, each
 *  with its cycles (issue, invalidation requested and completed, landing). */
void scn_json_breaches(FILE *f, const protcheck_t *pc);
/** The "wrs" list of the JSON result. */
void scn_json_wrs(FILE *f, const scn_report_t *r);
const char *scn_result_name(int rc);
/** What the end of a run observed (the checker's counts, line 0) and each WR's timing, into rec
 *  (scn_observe.c; here for scn_report_t). */
void scn_observe_end(scn_rec_t *rec, const scn_report_t *rep);

/* ================================================================ one engine's run, op by op (scn_run.c) */

/** A run of s on engine; no device yet (the first op that needs one starts it).
 *  rec: where each op's observations go (NULL: not recorded); label: the
 *  prefix of its -v lines. NULL when out of memory. */
run_t *scn_run_new(const scn_t *s, const scn_run_opts_t *o, scn_engine_t engine, scn_rec_t *rec, const char *label);
/** Run op i of the file (starting the device first when it needs one), then
 *  check the invariants: SCN_PASS, SCN_FAIL or SCN_ERROR. */
int scn_run_op(run_t *r, size_t i);
/** End a run whose last op gave rc (a file of only `device` boots the device
 *  here): how it ended in *rep (valid until scn_run_free; ck and fw hold what
 *  it points to). Returns the run's final code. */
int scn_run_end(run_t *r, int rc, scn_report_t *rep, scn_checker_t *ck, scn_fw_state_t *fw);
/** Write the --fw-profile file of an ended run, when asked ("firmware profile: PATH" to out). */
void scn_run_fw_profile(run_t *r, FILE *out);
void scn_run_free(run_t *r);
/** A named object's number in run r (its QP number; an MR's MPT index), UINT64_MAX when it has none yet. */
uint64_t scn_run_number(const run_t *r, int id);
/** Run s on o's engine alone (rtl, model or lockstep), reporting as `hcasim run` does. */
int scn_run_single(const scn_t *s, const scn_run_opts_t *o);
/** Run s on the RTL and the model side by side (--engine both). */
int scn_run_both(const scn_t *s, const scn_run_opts_t *o);

/* ================================================================ functional coverage (scn_cover.c) */

scn_cover_t *scn_cover_new(void);
void scn_cover_free(scn_cover_t *v);
/** Follow the device's event log (0, or -1: the log is full). */
int scn_cover_attach(scn_cover_t *v, hca_dev_t *dev);
void scn_cover_detach(scn_cover_t *v, hca_dev_t *dev);
/** WR number wr (the run's records) was posted at cycle post moving data through keys. */
void scn_cover_posted(scn_cover_t *v, size_t wr, uint64_t post, const uint32_t *keys, unsigned nkeys);
/** A completion was taken (wr: its WR's number, SIZE_MAX when none). */
void scn_cover_completed(scn_cover_t *v, size_t wr, unsigned opcode, unsigned status);
/** A peer invalidation took [addr, addr+len) back. */
void scn_cover_revoked(scn_cover_t *v, uint64_t addr, uint64_t len);
/** The run ended: the wait pins' counts and the firmware's refusals. */
void scn_cover_end(scn_cover_t *v, hca_dev_t *dev);
/** The "coverage" object of the JSON result. */
void scn_cover_json(FILE *f, const scn_cover_t *v);
/** The run's coverage (NULL outside a run). */
scn_cover_t *scn_cover_of(ctx_t *c);
/** The WR just posted (scn_posted) moves data through these SGEs' keys and rkey (0: none). */
void scn_posted_keys(ctx_t *c, const hca_sge_t *sge, unsigned n, uint32_t rkey);

/* ================================================================ transaction names (scn_txn.c) */

typedef struct scn_txn scn_txn_t;
/** The txn.* variables of a traced run on dev (the file's QPs, the firmware's
 *  functions), following dev's event log; host reads its CQEs. NULL: no memory. */
scn_txn_t *scn_txn_new(const scn_t *s, hca_dev_t *dev, const hca_host_t *host);
/** Unsubscribe from dev's log (dev may be NULL) and free; the wave file must be closed. */
void scn_txn_free(scn_txn_t *t, hca_dev_t *dev);
/** What hca_dev_trace_vars takes. */
const trace_vars_t *scn_txn_vars(scn_txn_t *t);
/** The op scn_ops[op] of line starts (t may be NULL: nothing). */
void scn_txn_op(scn_txn_t *t, unsigned line, int op);
/** A send WR (recv: a receive WR) was posted on the QP of symbol qp_sym (number qpn), its WQE at index. */
void scn_txn_posted(scn_txn_t *t, int qp_sym, int recv, uint32_t qpn, uint64_t wr_id, const char *opcode,
                    uint32_t index, unsigned line);

/* ================================================================ waves (scn_waves.c) */

/** --trace-when and --waves-on-fail: the run, watched, then its traced re-run. */
int scn_run_watched(const scn_t *s, const scn_run_opts_t *o);
/** Their options against the file (a line= trigger names an op's line). SCN_PASS or SCN_ERROR. */
int scn_check_waves_opts(const scn_t *s, const scn_run_opts_t *o, char *err, size_t errlen);
/* What a watched run tells its watch (w NULL: nothing); run identifies the
 * run: the first to start a device is the one whose events and lines count. */
void scn_watch_device(scn_watch_t *w, const void *run, hca_dev_t *dev);
void scn_watch_undevice(scn_watch_t *w, const void *run, hca_dev_t *dev);
void scn_watch_op(scn_watch_t *w, const void *run, unsigned line, uint64_t start, uint64_t end, int rc);
void scn_watch_end(scn_watch_t *w, const void *run, hca_dev_t *dev, int rc);
/** The pair diverged at the owner's last op. */
void scn_watch_diverged(scn_watch_t *w);

/** The JSON result. 0 or -errno. */
int scn_write_json(const char *path, const scn_report_t *r);
/** The firmware's busy cycles per function of firmware (ELF), most first, from
 *  a histogram of words counts per 4-byte word of its RAM. 0 or -errno. */
int scn_write_fw_profile(const char *path, const char *firmware, const uint64_t *hist, size_t words);
/** --peer-stats: DIR/memory_peers/<client>/{version,<counter>} for each peer client. 0 or -errno. */
int scn_write_peer_stats(const char *dir, const scn_report_t *r);

#endif /* SCN_INT_H */
