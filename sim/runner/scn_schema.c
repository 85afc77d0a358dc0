/* scn_schema.c — the scenario ops (SCENARIO.md "Ops") as data: each op's
 * name, handler and fields, and the fields of the objects nested in them.
 *
 * A field is its name, whether it is required, and its kind (scn_int.h);
 * an op's or object's fields are listed in the order the unknown-field check
 * suggests them. Where the value of one field decides which others apply
 * (post_send by opcode, alloc_mr by type) or an object comes in forms (an SGE
 * by mr, buf or addr), the schema has variants: every variant takes the
 * common fields, plus its own.
 *
 * What a field's value must be beyond its kind (ranges, powers of two, one
 * field or another) is the handler's: it reads its fields through the
 * readers of scn_fields.c, which check them against this table.
 */
#include "scn_int.h"

#define REQ 1
#define OPT 0
#define F(name, req, kind) {name, req, kind, 0, NULL, NULL}
#define F_BIND(name, sym) {name, REQ, K_BIND, sym, NULL, NULL}
#define F_NAME(name, req, sym) {name, req, K_NAME, sym, NULL, NULL}
#define F_KEY(name, req) {name, req, K_KEY, 0, NULL, &keyref}
#define F_KEY_MISSING(name, missing) {name, REQ, K_KEY, 0, missing, &keyref}
#define F_SGES(name, req) {name, req, K_SGES, 0, NULL, &sge}
#define F_OBJECT(name, req, missing, sub) {name, req, K_OBJECT, 0, missing, sub}
#define F_LIST(name, req, missing, sub) {name, req, K_LIST, 0, missing, sub}
#define END {NULL, 0, 0, 0, NULL, NULL}
#define FIELDS(...) ((const scn_field_t[]){__VA_ARGS__, END})
#define OBJECT(...) {.fields = FIELDS(__VA_ARGS__)}
#define VARIANTS(v) .variants = v, .nvariants = sizeof v / sizeof v[0]
#define OP(name_, fn_, ...) {.name = name_, .fn = fn_, .schema = OBJECT(__VA_ARGS__)}

/* ================================================================ nested objects */

/* A key reference as an object (SCENARIO.md "Values"); an integer is one too. */
static const scn_schema_t keyref = OBJECT(F_NAME("mr", REQ, SYM_MR), F("key", OPT, K_INT));

/* An SGE, in one of three forms, picked by which of mr, buf, addr it has. */
static const scn_variant_t sge_forms[] = {
    {"mr", FIELDS(F_NAME("mr", REQ, SYM_MR), F("offset", OPT, K_INT), F("length", OPT, K_INT), F_KEY("lkey", OPT))},
    {"buf", FIELDS(F_NAME("buf", REQ, SYM_BUF), F("offset", OPT, K_INT), F("length", OPT, K_INT),
                   F_KEY_MISSING("lkey", "an SGE over a buffer names its key"))},
    {"addr", FIELDS(F("addr", REQ, K_INT), {"length", REQ, K_INT, 0, "an SGE by address has a length", NULL},
                    F_KEY_MISSING("lkey", "an SGE by address names its key"))},
};
static const scn_schema_t sge = {VARIANTS(sge_forms)};

/* query_device "expect": the capabilities a scenario may check. */
static const scn_schema_t capabilities = OBJECT(
    F("mem_mgt_extensions", OPT, K_BOOL), F("read_with_inv", OPT, K_BOOL), F("indir_reg", OPT, K_BOOL),
    F("peer_memory", OPT, K_BOOL), F("fw_version", OPT, K_INT), F("max_fast_reg_page_list_len", OPT, K_INT),
    F("reserved_lkey", OPT, K_INT), F("max_indir_reg_list_len", OPT, K_INT), F("max_indirection", OPT, K_INT),
    F("max_mr", OPT, K_INT), F("max_mtt", OPT, K_INT), F("max_pd", OPT, K_INT), F("max_reg_pages", OPT, K_INT),
    F("max_qp", OPT, K_INT), F("max_cq", OPT, K_INT), F("max_qp_wr", OPT, K_INT), F("max_cqe", OPT, K_INT),
    F("max_send_sge", OPT, K_INT), F("max_recv_sge", OPT, K_INT), F_LIST("page_shifts", OPT, NULL, NULL));

/* check_mem "same_as": the bytes to compare with. */
static const scn_schema_t same_as = OBJECT(F_NAME("buf", REQ, SYM_BUF), F("offset", OPT, K_INT));

/* peer_stats "expect": the counters of SEMANTICS.md. */
static const scn_schema_t peer_counters = OBJECT(
    F("num_alloc_mrs", OPT, K_INT), F("num_dealloc_mrs", OPT, K_INT), F("num_reg_pages", OPT, K_INT),
    F("num_dereg_pages", OPT, K_INT), F("num_reg_bytes", OPT, K_INT), F("num_dereg_bytes", OPT, K_INT),
    F("num_free_callbacks", OPT, K_INT));

/* expect_counters: the bounds of one counter. */
static const scn_schema_t counter_bounds = OBJECT(F("min", OPT, K_INT), F("max", OPT, K_INT));

/* set_page_list "pages" entries: {"buf","offset"} or {"addr"}. */
static const scn_variant_t page_forms[] = {
    {"buf", FIELDS(F_NAME("buf", REQ, SYM_BUF), F("offset", OPT, K_INT))},
    {"addr", FIELDS(F("addr", REQ, K_INT))},
};
static const scn_schema_t page = {VARIANTS(page_forms)};

/* check_mr "expect": the MPT entry's fields. */
static const scn_schema_t mpt_fields = OBJECT(
    F("state", OPT, K_ENUM), F("key", OPT, K_INT), F("lkey", OPT, K_INT), F("rkey", OPT, K_INT),
    F("iova", OPT, K_INT), F("length", OPT, K_INT), F("access", OPT, K_FLAGS), F("kind", OPT, K_ENUM),
    F_NAME("pd", OPT, SYM_PD), F("allocated", OPT, K_BOOL), F("page_shift", OPT, K_INT));

/* post_send "remote": the remote address by an MR (its iova and R_Key) or a buffer (its bus address). */
static const scn_schema_t remote =
    OBJECT(F_NAME("mr", OPT, SYM_MR), F_NAME("buf", OPT, SYM_BUF), F("offset", OPT, K_INT));

/* poll_cq "expect" entries: an expected completion ("status" may be a list of names). */
static const scn_schema_t cqe = OBJECT(
    F("wr_id", OPT, K_INT), F("status", OPT, K_ENUM), F("opcode", OPT, K_ENUM), F("byte_len", OPT, K_INT),
    F("wc_flags", OPT, K_FLAGS), F_KEY("invalidate_rkey", OPT), F_NAME("qp", OPT, SYM_QP),
    F("max_latency_cycles", OPT, K_INT));

/* ================================================================ variants of ops */

/* post_send: the fields of each opcode (indexed by its value), besides the common ones. */
static const scn_variant_t wr_opcodes[] = {
    [HCA_WR_OPCODE_SEND] = {"SEND", FIELDS(F_SGES("sge", OPT))},
    [HCA_WR_OPCODE_SEND_WITH_INV] = {"SEND_WITH_INV", FIELDS(F_SGES("sge", OPT), F_KEY("invalidate", REQ))},
    [HCA_WR_OPCODE_RDMA_WRITE] = {"RDMA_WRITE", FIELDS(F_SGES("sge", OPT), F("remote_addr", OPT, K_INT),
                                                       F_OBJECT("remote", OPT, NULL, &remote), F_KEY("rkey", OPT))},
    [HCA_WR_OPCODE_RDMA_READ] = {"RDMA_READ", FIELDS(F_SGES("sge", OPT), F("remote_addr", OPT, K_INT),
                                                     F_OBJECT("remote", OPT, NULL, &remote), F_KEY("rkey", OPT))},
    [HCA_WR_OPCODE_RDMA_READ_WITH_INV] = {"RDMA_READ_WITH_INV",
                                          FIELDS(F_SGES("sge", OPT), F("remote_addr", OPT, K_INT),
                                                 F_OBJECT("remote", OPT, NULL, &remote), F_KEY("rkey", OPT),
                                                 F_KEY("invalidate", OPT))},
    [HCA_WR_OPCODE_LOCAL_INV] = {"LOCAL_INV", FIELDS(F_KEY("invalidate", REQ))},
    [HCA_WR_OPCODE_FAST_REG_MR] = {"FAST_REG_MR",
                                   FIELDS(F_NAME("mr", REQ, SYM_MR), F_NAME("page_list", REQ, SYM_PL),
                                          F("page_list_len", OPT, K_INT), F("page_shift", OPT, K_INT),
                                          F("iova", REQ, K_INT), F("length", REQ, K_INT), F("access", OPT, K_FLAGS),
                                          F_KEY("key", OPT))},
    [HCA_WR_OPCODE_REG_INDIR_MR] = {"REG_INDIR_MR",
                                    FIELDS(F_NAME("mr", REQ, SYM_MR), F_SGES("list", REQ), F("iova", REQ, K_INT),
                                           F("length", REQ, K_INT), F("access", OPT, K_FLAGS), F_KEY("key", OPT))},
};
_Static_assert(sizeof wr_opcodes / sizeof wr_opcodes[0] == HCA_WR_OPCODE_MAX + 1, "a variant per WR opcode");

/* alloc_mr: the list length of each type. */
static const scn_variant_t mr_types[] = {
    {"fast_reg", FIELDS(F("max_page_list_len", REQ, K_INT))},
    {"indirect", FIELDS(F("max_indir_list_len", REQ, K_INT))},
};

/* check_mem "when": only if this send WR has completed with this status. */
static const scn_schema_t when_completed =
    OBJECT(F_NAME("qp", REQ, SYM_QP), F("wr_id", REQ, K_INT), F("status", REQ, K_ENUM));

/* check_mem: the expected bytes as hex, or those of another buffer. */
static const scn_variant_t mem_expectations[] = {
    {"hex", FIELDS(F("length", OPT, K_INT), F("hex", REQ, K_HEX))},
    {"same_as", FIELDS(F("length", REQ, K_INT), F_OBJECT("same_as", REQ, NULL, &same_as))},
};

/* ================================================================ the ops */

const op_spec_t scn_ops[] = {
    /* setup */
    {.name = "device", .fn = scn_op_device, .flags = SCN_OP_CONFIG,
     .schema = OBJECT(F("seed", OPT, K_INT), F("mpt_entries", OPT, K_INT), F("mtt_entries", OPT, K_INT),
                      F("host_read_latency", OPT, K_INT), F("host_write_cost", OPT, K_INT),
                      F("host_bytes_per_cycle", OPT, K_INT), F("link_latency", OPT, K_INT),
                      F("link_bytes_per_cycle", OPT, K_INT), F("max_indirection", OPT, K_INT),
                      F("peer_invalidation", OPT, K_BOOL), F("peer_latency", OPT, K_INT),
                      F("peer_bytes_per_cycle", OPT, K_INT))},
    OP("query_device", scn_op_query_device, F_OBJECT("expect", REQ, "an object of capabilities", &capabilities)),
    OP("alloc_pd", scn_op_alloc_pd, F_BIND("pd", SYM_PD), F("expect_error", OPT, K_ERRNO)),
    OP("create_cq", scn_op_create_cq, F_BIND("cq", SYM_CQ), F("depth", OPT, K_INT), F("expect_error", OPT, K_ERRNO)),
    OP("create_qp", scn_op_create_qp, F_BIND("qp", SYM_QP), F_NAME("pd", REQ, SYM_PD), F_NAME("send_cq", REQ, SYM_CQ),
       F_NAME("recv_cq", REQ, SYM_CQ), F("sq_depth", OPT, K_INT), F("rq_depth", OPT, K_INT),
       F("rnr_retry", OPT, K_INT), F("rnr_timer", OPT, K_INT), F("mtu", OPT, K_INT), F("expect_error", OPT, K_ERRNO)),
    OP("connect", scn_op_connect, F_NAME("qp", REQ, SYM_QP), F_NAME("remote", REQ, SYM_QP),
       F("expect_error", OPT, K_ERRNO)),
    OP("modify_qp", scn_op_modify_qp, F_NAME("qp", REQ, SYM_QP), F("state", REQ, K_ENUM),
       F("expect_error", OPT, K_ERRNO)),
    OP("destroy_qp", scn_op_destroy_qp, F_NAME("qp", REQ, SYM_QP), F("expect_error", OPT, K_ERRNO)),
    OP("destroy_cq", scn_op_destroy_cq, F_NAME("cq", REQ, SYM_CQ), F("expect_error", OPT, K_ERRNO)),
    OP("dealloc_pd", scn_op_dealloc_pd, F_NAME("pd", REQ, SYM_PD), F("expect_error", OPT, K_ERRNO)),
    /* host and peer memory */
    OP("host_alloc", scn_op_host_alloc, F_BIND("buf", SYM_BUF), F("size", REQ, K_INT), F("align", OPT, K_INT),
       F("fill", OPT, K_FILL)),
    OP("host_fill", scn_op_host_fill, F_NAME("buf", REQ, SYM_BUF), F("offset", OPT, K_INT), F("length", OPT, K_INT),
       F("fill", REQ, K_FILL)),
    OP("host_write", scn_op_host_write, F_NAME("buf", REQ, SYM_BUF), F("offset", OPT, K_INT), F("hex", REQ, K_HEX)),
    {.name = "check_mem", .fn = scn_op_check_mem,
     .schema = {.fields = FIELDS(F_NAME("buf", REQ, SYM_BUF), F("offset", OPT, K_INT),
                                 F_OBJECT("when", OPT, NULL, &when_completed)),
                VARIANTS(mem_expectations)}},
    OP("peer_client", scn_op_peer_client, F_BIND("client", SYM_CLIENT), F("page_size", REQ, K_INT),
       F("size", REQ, K_INT), F("requires_invalidation", OPT, K_BOOL)),
    OP("peer_alloc", scn_op_peer_alloc, F_BIND("buf", SYM_BUF), F_NAME("client", REQ, SYM_CLIENT),
       F("size", REQ, K_INT), F("fill", OPT, K_FILL)),
    OP("peer_invalidate", scn_op_peer_invalidate, F_NAME("client", REQ, SYM_CLIENT), F_NAME("buf", REQ, SYM_BUF)),
    OP("peer_stats", scn_op_peer_stats, F_NAME("client", REQ, SYM_CLIENT),
       F_OBJECT("expect", REQ, "an object of counters", &peer_counters)),
    OP("peer_unregister", scn_op_peer_unregister, F_NAME("client", REQ, SYM_CLIENT), F("expect_error", OPT, K_ERRNO)),
    /* registration */
    OP("reg_mr", scn_op_reg_mr, F_BIND("mr", SYM_MR), F_NAME("pd", REQ, SYM_PD), F_NAME("buf", REQ, SYM_BUF),
       F("offset", OPT, K_INT), F("length", OPT, K_INT), F("access", OPT, K_FLAGS), F("iova", OPT, K_INT),
       F("page_shift", OPT, K_INT), F("expect_error", OPT, K_ERRNO)),
    OP("get_dma_mr", scn_op_get_dma_mr, F_BIND("mr", SYM_MR), F_NAME("pd", REQ, SYM_PD),
       F("expect_error", OPT, K_ERRNO)),
    {.name = "alloc_mr", .fn = scn_op_alloc_mr,
     .schema = {.fields = FIELDS(F_BIND("mr", SYM_MR), F_NAME("pd", REQ, SYM_PD), F("type", REQ, K_CHOICE),
                                 F("expect_error", OPT, K_ERRNO)),
                VARIANTS(mr_types), .chosen_by = "type"}},
    OP("alloc_fast_reg_page_list", scn_op_alloc_fast_reg_page_list, F_BIND("pl", SYM_PL), F("len", REQ, K_INT)),
    OP("free_fast_reg_page_list", scn_op_free_fast_reg_page_list, F_NAME("pl", REQ, SYM_PL)),
    OP("set_page_list", scn_op_set_page_list, F_NAME("pl", REQ, SYM_PL),
       F_LIST("pages", REQ, "a list of {\"buf\",\"offset\"} or {\"addr\"}", &page)),
    OP("update_fast_reg_key", scn_op_update_fast_reg_key, F_NAME("mr", REQ, SYM_MR), F("key", REQ, K_INT)),
    OP("dereg_mr", scn_op_dereg_mr, F_NAME("mr", REQ, SYM_MR), F("expect_error", OPT, K_ERRNO)),
    OP("check_mr", scn_op_check_mr, F_NAME("mr", REQ, SYM_MR),
       F_OBJECT("expect", REQ, "an object of MPT fields", &mpt_fields)),
    /* work requests */
    {.name = "post_send", .fn = scn_op_post_send,
     .schema = {.fields = FIELDS(F_NAME("qp", REQ, SYM_QP), F("wr_id", REQ, K_INT), F("opcode", REQ, K_ENUM),
                                 F("signaled", OPT, K_BOOL), F("fence", OPT, K_BOOL), F("expect_post", OPT, K_ERRNO)),
                VARIANTS(wr_opcodes), .chosen_by = "opcode", .refusal_lists = 1}},
    OP("post_recv", scn_op_post_recv, F_NAME("qp", REQ, SYM_QP), F("wr_id", REQ, K_INT), F_SGES("sge", OPT),
       F("expect_post", OPT, K_ERRNO)),
    OP("post_raw_wqe", scn_op_post_raw_wqe, F_NAME("qp", REQ, SYM_QP), F("hex", REQ, K_HEX), F("wr_id", OPT, K_INT),
       F("recv", OPT, K_BOOL), F("expect_post", OPT, K_ERRNO)),
    /* time and completions */
    OP("run", scn_op_run, F("cycles", REQ, K_INT)),
    OP("poll_cq", scn_op_poll_cq, F_NAME("cq", REQ, SYM_CQ),
       F_LIST("expect", REQ, "a list of expected completions", &cqe), F("timeout_cycles", OPT, K_INT),
       F("any_order", OPT, K_BOOL)),
    OP("expect_cq_empty", scn_op_expect_cq_empty, F_NAME("cq", REQ, SYM_CQ), F("after_cycles", OPT, K_INT)),
    OP("expect_qp_state", scn_op_expect_qp_state, F_NAME("qp", REQ, SYM_QP), F("state", REQ, K_ENUM)),
    OP("expect_counters", scn_op_expect_counters, F_OBJECT("fence_waits", OPT, NULL, &counter_bounds),
       F_OBJECT("drain_waits", OPT, NULL, &counter_bounds), F_OBJECT("refused_after_inv", OPT, NULL, &counter_bounds)),
};
const size_t scn_nops = sizeof scn_ops / sizeof scn_ops[0];
