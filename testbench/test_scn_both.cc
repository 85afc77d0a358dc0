// test_scn_both.cc — `hcasim run --engine both` (sim/runner/scn_both.h):
// the comparison of two recordings (each kind of divergence, the first one
// wins, the paths an op can part on), the latency statistics on known
// numbers, two RTL devices run side by side (they must agree, 0% error), a
// real divergence through the whole pipeline (one side with another seed), and
// the command line while the model device cannot start. Linked into
// test_scenario.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json.h"
#include "scenario.h"
#include "scn_both.h"
#include "scn_test.h"

namespace {

using namespace scn_test;

// ---------------------------------------------------------------- recordings by hand

// A recording owned by the test.
struct Rec {
    scn_rec_t r{};
    ~Rec() { scn_rec_free(&r); }
    Rec &v(unsigned line, const char *op, const char *field, const char *value, const char *detail = nullptr)
    {
        EXPECT_EQ(0, scn_rec_add(&r, line, op, field, value, detail));
        return *this;
    }
    Rec &bytes(unsigned line, const char *buf, uint64_t off, const std::vector<uint8_t> &b)
    {
        EXPECT_EQ(0, scn_rec_add_bytes(&r, line, "check_mem", "bytes", buf, off, b.data(), b.size()));
        return *this;
    }
    Rec &wr(unsigned line, uint64_t wr_id, int done, uint64_t post, uint64_t cqe)
    {
        EXPECT_EQ(0, scn_rec_add_wr(&r, line, "qa", "RDMA_WRITE", wr_id, done, post, cqe));
        return *this;
    }
};

// The first divergence of b from a (both from observation `from` on) as
// "LINE op: field: A / B", or "agree".
std::string FirstDivergence(const Rec &a, const Rec &b, size_t from = 0)
{
    scn_divergence_t d;
    if (!scn_rec_compare(&a.r, from, &b.r, from, &d))
        return "agree";
    return std::to_string(d.line) + " " + d.op + ": " + d.field + ": " + d.a + " / " + d.b;
}

// One engine's run of a small scenario: a completion, memory, an MR, the
// checker's verdicts, the end of the run. Each test changes one thing on one side.
void Typical(Rec &x, const char *status = "SUCCESS", uint8_t byte3 = 0x03, const char *state = "VALID",
             const char *breaches = "0", const char *end_dma = "12")
{
    x.v(5, "reg_mr", "reg_mr returned", "OK").v(5, "reg_mr", "lkey, rkey", "0x00000101, 0x00000101");
    x.v(5, "reg_mr", "checker breaches", "0").v(5, "reg_mr", "outcome", "ok");
    x.v(7, "poll_cq", "completions taken", "1").v(7, "poll_cq", "completion 1 of 1: wr_id", "1");
    x.v(7, "poll_cq", "completion 1 of 1: status", status).v(7, "poll_cq", "completion 1 of 1: byte_len", "256");
    const char *why = "cycle 9 key 0x00000101 addr 0x1000: DMA after invalidation";
    x.v(7, "poll_cq", "checker breaches", breaches, strcmp(breaches, "0") ? why : nullptr);
    x.v(7, "poll_cq", "outcome", "ok");
    x.bytes(8, "dst", 0x100, {0x00, 0x01, 0x02, byte3, 0x04, 0x05, 0x06, 0x07});
    x.v(8, "check_mem", "checker breaches", "0").v(8, "check_mem", "outcome", "ok");
    x.v(9, "check_mr", "MPT[1] of m0: state", state).v(9, "check_mr", "MPT[1] of m0: key", "0x00000101");
    x.v(9, "check_mr", "checker breaches", "0").v(9, "check_mr", "outcome", "ok");
    x.v(0, "end of run", "checker: engine DMAs", end_dma).v(0, "end of run", "checker: breaches", "0");
}

TEST(ScenarioBoth, IdenticalRecordingsAgree)
{
    Rec a, b;
    Typical(a);
    Typical(b);
    EXPECT_EQ("agree", FirstDivergence(a, b));
    // A detail (a failure's reason, with its cycles) is shown, never compared.
    Rec c, e;
    c.v(3, "poll_cq", "outcome", "MISMATCH", "completion arrived at cycle 100");
    e.v(3, "poll_cq", "outcome", "MISMATCH", "completion arrived at cycle 140");
    EXPECT_EQ("agree", FirstDivergence(c, e));
}

TEST(ScenarioBoth, CompletionFieldDivergence)
{
    Rec a, b;
    Typical(a);
    Typical(b, "REM_ACCESS_ERR");
    EXPECT_EQ("7 poll_cq: completion 1 of 1: status: SUCCESS / REM_ACCESS_ERR", FirstDivergence(a, b));
}

TEST(ScenarioBoth, MemoryDivergenceNamesTheFirstByte)
{
    Rec a, b;
    Typical(a);
    Typical(b, "SUCCESS", 0xee);
    EXPECT_EQ("8 check_mem: bytes: dst+0x103 (byte 3 of 8): 0304050607 / ee04050607", FirstDivergence(a, b));
    // A longer read shows 16 bytes and says more follow.
    Rec x, y;
    std::vector<uint8_t> m(40, 0x5a), n = m;
    n[2] = 0;
    x.bytes(4, "b0", 0, m);
    y.bytes(4, "b0", 0, n);
    EXPECT_EQ("4 check_mem: bytes: b0+0x2 (byte 2 of 40): "
              "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a… / 005a5a5a5a5a5a5a5a5a5a5a5a5a5a5a…",
              FirstDivergence(x, y));
}

TEST(ScenarioBoth, MrStateDivergence)
{
    Rec a, b;
    Typical(a);
    Typical(b, "SUCCESS", 0x03, "INVALID");
    EXPECT_EQ("9 check_mr: MPT[1] of m0: state: VALID / INVALID", FirstDivergence(a, b));
}

TEST(ScenarioBoth, CheckerVerdictDivergence)
{
    Rec a, b;
    Typical(a);
    Typical(b, "SUCCESS", 0x03, "VALID", "1");
    EXPECT_EQ("7 poll_cq: checker breaches: 0 / 1 (cycle 9 key 0x00000101 addr 0x1000: DMA after invalidation)",
              FirstDivergence(a, b))
        << "the breach is shown";
    // The checker's final counts, at the end of the run (line 0).
    Rec x, y;
    Typical(x);
    Typical(y, "SUCCESS", 0x03, "VALID", "0", "14");
    EXPECT_EQ("0 end of run: checker: engine DMAs: 12 / 14", FirstDivergence(x, y));
}

TEST(ScenarioBoth, TheFirstDivergenceIsReported)
{
    // Every kind at once on the model's side: the completion (line 7) comes first.
    Rec a, b;
    Typical(a);
    Typical(b, "WR_FLUSH_ERR", 0xee, "INVALID", "1", "99");
    EXPECT_EQ("7 poll_cq: completion 1 of 1: status: SUCCESS / WR_FLUSH_ERR", FirstDivergence(a, b));
    // From line 8 on (the slices lockstep compares), the memory is first.
    size_t from = 0;
    while (a.r.obs[from].line != 8)
        from++;
    EXPECT_EQ("8 check_mem: bytes: dst+0x103 (byte 3 of 8): 0304050607 / ee04050607", FirstDivergence(a, b, from));
}

TEST(ScenarioBoth, DifferentPathsThroughAnOp)
{
    // rtl took its completion; the model timed out (no completion fields, a
    // MISMATCH): the count comes first, and it differs.
    Rec a, b;
    a.v(7, "poll_cq", "completions taken", "1").v(7, "poll_cq", "completion 1 of 1: wr_id", "1");
    a.v(7, "poll_cq", "outcome", "ok");
    b.v(7, "poll_cq", "completions taken", "0").v(7, "poll_cq", "outcome", "MISMATCH", "expected 1 completion");
    EXPECT_EQ("7 poll_cq: completions taken: 1 / 0", FirstDivergence(a, b));
    // A create that failed on one side observes no handle: the outcome says why.
    Rec c, e;
    c.v(2, "create_cq", "cqn", "1").v(2, "create_cq", "outcome", "ok");
    e.v(2, "create_cq", "outcome", "MISMATCH", "expected CREATE_CQ to succeed, got ENOMEM");
    EXPECT_EQ("2 create_cq: outcome: ok / MISMATCH (expected CREATE_CQ to succeed, got ENOMEM)", FirstDivergence(c, e));
    // A field only one side has, with equal outcomes: that field.
    Rec f, g;
    f.v(4, "expect_cq_empty", "empty", "yes").v(4, "expect_cq_empty", "outcome", "ok");
    g.v(4, "expect_cq_empty", "outcome", "ok");
    EXPECT_EQ("4 expect_cq_empty: empty: yes / (not observed)", FirstDivergence(f, g));
    // A recording that stops early diverges from one that goes on.
    Rec h, k;
    h.v(4, "run", "outcome", "ok").v(5, "check_mem", "outcome", "ok");
    k.v(4, "run", "outcome", "ok");
    EXPECT_EQ("5 check_mem: outcome: ok / (not observed)", FirstDivergence(h, k));
}

// ---------------------------------------------------------------- latency

TEST(ScenarioBoth, StatsOnKnownNumbers)
{
    double med, p95, max;
    std::vector<double> v = {5, 1, 4, 2, 3};
    scn_stats(v.data(), v.size(), &med, &p95, &max);
    EXPECT_DOUBLE_EQ(3, med);
    EXPECT_DOUBLE_EQ(5, p95);
    EXPECT_DOUBLE_EQ(5, max);
    v = {4, 1, 3, 2};
    scn_stats(v.data(), v.size(), &med, &p95, &max);
    EXPECT_DOUBLE_EQ(2.5, med) << "even count: the mean of the middle two";
    v.clear();
    for (int i = 100; i >= 1; i--)
        v.push_back(i);
    scn_stats(v.data(), v.size(), &med, &p95, &max);
    EXPECT_DOUBLE_EQ(50.5, med);
    EXPECT_DOUBLE_EQ(95, p95) << "nearest rank: the 95th of 100";
    EXPECT_DOUBLE_EQ(100, max);
    v.clear();
    for (int i = 1; i <= 20; i++)
        v.push_back(i);
    scn_stats(v.data(), v.size(), &med, &p95, &max);
    EXPECT_DOUBLE_EQ(19, p95) << "the 19th of 20";
    v = {7};
    scn_stats(v.data(), 1, &med, &p95, &max);
    EXPECT_DOUBLE_EQ(7, med);
    EXPECT_DOUBLE_EQ(7, p95);
    scn_stats(nullptr, 0, &med, &p95, &max);
    EXPECT_EQ(0, med + p95 + max);
}

TEST(ScenarioBoth, LatencyErrorPerWorkRequest)
{
    // rtl: 100, 200, 400, 50 cycles; model: 110 (+10%), 190 (-5%), 400 (0%), none.
    Rec a, b;
    a.wr(10, 1, 1, 1000, 1100).wr(11, 2, 1, 2000, 2200).wr(12, 3, 1, 3000, 3400).wr(13, 4, 1, 4000, 4050);
    b.wr(10, 1, 1, 900, 1010).wr(11, 2, 1, 1900, 2090).wr(12, 3, 1, 2900, 3300).wr(13, 4, 0, 3900, 0);
    scn_lat_t l;
    ASSERT_EQ(0, scn_latency(&a.r, &b.r, &l));
    ASSERT_EQ(4u, l.nwrs);
    EXPECT_EQ(3u, l.count) << "wr 4 completed on one engine only";
    EXPECT_EQ(100u, l.wrs[0].a);
    EXPECT_EQ(110u, l.wrs[0].b);
    EXPECT_NEAR(10.0, l.wrs[0].err, 1e-9);
    EXPECT_NEAR(-5.0, l.wrs[1].err, 1e-9) << "signed per WR";
    EXPECT_NEAR(0.0, l.wrs[2].err, 1e-9);
    EXPECT_FALSE(l.wrs[3].both);
    EXPECT_NEAR(5.0, l.median, 1e-9) << "of |error|: 0, 5, 10";
    EXPECT_NEAR(10.0, l.p95, 1e-9);
    EXPECT_NEAR(10.0, l.max, 1e-9);
    EXPECT_EQ(0, l.worst);
    scn_lat_free(&l);
    // Runs that posted different WRs are paired up to where they part.
    Rec c, e;
    c.wr(10, 1, 1, 0, 100).wr(11, 2, 1, 0, 100);
    e.wr(10, 1, 1, 0, 100).wr(12, 9, 1, 0, 300);
    ASSERT_EQ(0, scn_latency(&c.r, &e.r, &l));
    EXPECT_EQ(1u, l.nwrs);
    EXPECT_EQ(1u, l.count);
    EXPECT_EQ(0.0, l.max);
    scn_lat_free(&l);
}

// ---------------------------------------------------------------- two real devices

std::string Path(const std::string &name)
{
    mkdir(SCN_TMP, 0777);
    return std::string(SCN_TMP "/both_") + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
}

// Traffic whose every kind of observation both engines must agree on: a SEND
// and an RDMA WRITE of random bytes, completions, memory, MRs, a QP state.
const char *const kTraffic = R"({"op":"device","seed":5}
{"op":"alloc_pd","pd":"pd0"}
{"op":"create_cq","cq":"cqa","depth":64}
{"op":"create_cq","cq":"cqb","depth":64}
{"op":"create_qp","qp":"qa","pd":"pd0","send_cq":"cqa","recv_cq":"cqa"}
{"op":"create_qp","qp":"qb","pd":"pd0","send_cq":"cqb","recv_cq":"cqb"}
{"op":"connect","qp":"qa","remote":"qb"}
{"op":"host_alloc","buf":"src","size":8192,"fill":"random"}
{"op":"host_alloc","buf":"dst","size":8192}
{"op":"reg_mr","mr":"ms","pd":"pd0","buf":"src","access":[]}
{"op":"reg_mr","mr":"md","pd":"pd0","buf":"dst","access":["LOCAL_WRITE","REMOTE_WRITE"]}
{"op":"post_recv","qp":"qb","wr_id":100,"sge":[{"mr":"md","offset":4096,"length":1024}]}
{"op":"post_send","qp":"qa","wr_id":1,"opcode":"SEND","sge":[{"mr":"ms","offset":0,"length":1000}]}
{"op":"poll_cq","cq":"cqb","expect":[{"wr_id":100,"status":"SUCCESS","byte_len":1000}]}
{"op":"poll_cq","cq":"cqa","expect":[{"wr_id":1,"status":"SUCCESS"}]}
{"op":"post_send","qp":"qa","wr_id":2,"opcode":"RDMA_WRITE","sge":[{"mr":"ms","offset":0,"length":4096}],"remote":{"mr":"md"}}
{"op":"poll_cq","cq":"cqa","expect":[{"wr_id":2,"status":"SUCCESS","opcode":"RDMA_WRITE"}]}
{"op":"check_mem","buf":"dst","length":4096,"same_as":{"buf":"src","offset":0}}
{"op":"check_mr","mr":"md","expect":{"state":"VALID"}}
{"op":"expect_qp_state","qp":"qa","state":"RTS"}
{"op":"expect_cq_empty","cq":"cqa","after_cycles":100}
)";

struct Loaded {
    scn_t *s = nullptr;
    explicit Loaded(const char *text)
    {
        char err[1024];
        EXPECT_EQ(SCN_PASS, scn_load_text("traffic.jsonl", text, strlen(text), &s, err, sizeof err)) << err;
    }
    ~Loaded() { scn_free(s); }
};

struct Captured {
    char *obuf = nullptr, *ebuf = nullptr;
    size_t olen = 0, elen = 0;
    FILE *o = open_memstream(&obuf, &olen), *e = open_memstream(&ebuf, &elen);
    std::string out, err;
    void Close()
    {
        fclose(o);
        fclose(e);
        out.assign(obuf, olen);
        err.assign(ebuf, elen);
        free(obuf);
        free(ebuf);
    }
};

// A JSON number of either form (integers and fractions), -1 when none.
double Num(const json_value_t *v)
{
    if (v && v->type == JSON_INT)
        return v->u.integer.neg ? -(double)v->u.integer.mag : (double)v->u.integer.mag;
    return v && v->type == JSON_NUMBER ? v->u.number.value : -1;
}

// The value of field k observed on line `line`, or "<none>".
std::string Observed(const scn_rec_t &r, unsigned line, const std::string &k)
{
    for (size_t i = 0; i < r.nobs; i++)
        if (r.obs[i].line == line && k == r.obs[i].field)
            return r.obs[i].bytes ? std::to_string(r.obs[i].nbytes) + " bytes" : r.obs[i].value;
    return "<none>";
}

TEST(ScenarioBoth, ARunRecordsWhatEachOpObserved)
{
    // One engine's recording of kTraffic holds each kind of observation the
    // comparison relies on (else "the engines agree" would mean nothing).
    Loaded l(kTraffic);
    ASSERT_NE(l.s, nullptr);
    scn_run_opts_t o{};
    o.engine = SCN_ENGINE_RTL;
    Rec x;
    ASSERT_EQ(SCN_PASS, scn_record(l.s, &o, &x.r));
    const scn_rec_t &r = x.r;
    EXPECT_EQ("1", Observed(r, 2, "pd"));
    EXPECT_EQ("OK", Observed(r, 2, "ALLOC_PD returned"));
    EXPECT_EQ("2", Observed(r, 4, "cqn"));
    EXPECT_EQ("0x00000201, 0x00000201", Observed(r, 11, "lkey, rkey"));
    EXPECT_EQ("OK", Observed(r, 13, "post_send returned"));
    EXPECT_EQ("1", Observed(r, 14, "completions taken"));
    EXPECT_EQ("100", Observed(r, 14, "completion 1 of 1: wr_id"));
    EXPECT_EQ("RECV", Observed(r, 14, "completion 1 of 1: opcode"));
    EXPECT_EQ("1000", Observed(r, 14, "completion 1 of 1: byte_len"));
    EXPECT_EQ("qb (qpn 2)", Observed(r, 14, "completion 1 of 1: qp"));
    EXPECT_EQ("none", Observed(r, 14, "completion 1 of 1: wc_flags"));
    EXPECT_EQ("SUCCESS", Observed(r, 17, "completion 1 of 1: status"));
    EXPECT_EQ("4096 bytes", Observed(r, 18, "bytes"));
    EXPECT_EQ("4096 bytes", Observed(r, 18, "bytes of same_as"));
    EXPECT_EQ("VALID", Observed(r, 19, "MPT[2] of md: state"));
    EXPECT_EQ("0x00000201", Observed(r, 19, "MPT[2] of md: key"));
    EXPECT_EQ("8192", Observed(r, 19, "MPT[2] of md: length"));
    EXPECT_EQ("RTS", Observed(r, 20, "state"));
    EXPECT_EQ("yes", Observed(r, 21, "empty"));
    EXPECT_EQ("0", Observed(r, 17, "checker breaches"));
    EXPECT_EQ("ok", Observed(r, 17, "outcome"));
    EXPECT_EQ("10", Observed(r, 0, "checker: engine DMAs"));
    EXPECT_EQ("2", Observed(r, 0, "checker: registrations"));
    ASSERT_EQ(3u, r.nwrs);
    EXPECT_EQ(16u, r.wrs[2].line);
    EXPECT_EQ(2u, r.wrs[2].wr_id);
    EXPECT_TRUE(r.wrs[2].done);
    EXPECT_GT(r.wrs[2].completion_cycle, r.wrs[2].post_cycle);
    // A second run records the same, to the byte.
    Rec y;
    ASSERT_EQ(SCN_PASS, scn_record(l.s, &o, &y.r));
    scn_divergence_t d;
    EXPECT_EQ(0, scn_rec_compare(&x.r, 0, &y.r, 0, &d)) << d.line << " " << d.field << ": " << d.a << " / " << d.b;
    EXPECT_EQ(x.r.nobs, y.r.nobs);
}

TEST(ScenarioBoth, RtlAgainstRtlAgreesWithZeroError)
{
    Loaded l(kTraffic);
    ASSERT_NE(l.s, nullptr);
    std::string json = Path("r.json");
    Captured c;
    scn_run_opts_t a{}, b{};
    a.engine = b.engine = SCN_ENGINE_RTL;
    a.json_out = json.c_str();
    a.verbose = 1;
    a.out = c.o;
    a.err = c.e;
    EXPECT_EQ(SCN_PASS, scn_run_pair(l.s, &a, &b));
    c.Close();
    EXPECT_EQ("", c.err);
    EXPECT_TRUE(Contains(c.out, "PASS traffic.jsonl: 21 ops, engines rtl+rtl#2 agree; rtl ")) << c.out;
    EXPECT_TRUE(Contains(c.out, "latency error (rtl#2 vs rtl, post->CQE, 3 WRs): median 0.0%, p95 0.0%, max 0.0%"))
        << c.out;
    EXPECT_TRUE(Contains(c.out, "traffic.jsonl:16 wr_id 2 RDMA_WRITE on qa: latency rtl ")) << "-v: per WR\n" << c.out;
    EXPECT_TRUE(Contains(c.out, "error +0.0%")) << c.out;
    EXPECT_TRUE(Contains(c.out, "rtl#2  cycle ")) << "-v: each engine's ops, labelled\n" << c.out;
    EXPECT_TRUE(Contains(c.out, "checker (rtl, rtl#2 alike): ")) << c.out;
    JsonFile j(json);
    ASSERT_NE(j.doc, nullptr);
    EXPECT_EQ("both", Str(j.get("engine")));
    EXPECT_EQ("pass", Str(j.get("result")));
    const json_value_t *both = j.get("both");
    ASSERT_NE(both, nullptr);
    EXPECT_EQ(JSON_NULL, json_get(both, "divergence")->type);
    EXPECT_EQ(21, Num(json_get(both, "ops_run")));
    const json_value_t *lat = json_get(both, "latency");
    EXPECT_EQ(3, Num(json_get(lat, "count")));
    EXPECT_EQ(0, Num(json_get(lat, "median")));
    EXPECT_EQ(0, Num(json_get(lat, "max")));
    const json_value_t *wrs = json_get(both, "wrs");
    ASSERT_EQ(JSON_ARRAY, wrs->type);
    ASSERT_EQ(3u, wrs->u.array.n);
    const json_value_t *w = wrs->u.array.items[2];
    EXPECT_EQ(2, Num(json_get(w, "wr_id")));
    EXPECT_GT(Num(json_get(w, "rtl")), 100) << "a 4 KiB WRITE takes time";
    EXPECT_EQ(Num(json_get(w, "rtl")), Num(json_get(w, "model")));
    EXPECT_EQ(0, Num(json_get(w, "error")));
    EXPECT_EQ("pass", Str(json_get(json_get(both, "model"), "result")));
}

TEST(ScenarioBoth, ASeedApartDivergesAtTheFirstMemoryCheck)
{
    // The same scenario with another seed on one side: the random source
    // bytes differ, so everything agrees up to the check_mem of line 18, which
    // both engines pass (dst is src on each) but whose bytes differ.
    Loaded l(kTraffic);
    ASSERT_NE(l.s, nullptr);
    std::string json = Path("r.json");
    Captured c;
    scn_run_opts_t a{}, b{};
    a.engine = b.engine = SCN_ENGINE_RTL;
    b.seed_set = 1;
    b.seed = 6;
    a.json_out = json.c_str();
    a.out = c.o;
    a.err = c.e;
    EXPECT_EQ(SCN_FAIL, scn_run_pair(l.s, &a, &b));
    c.Close();
    EXPECT_TRUE(Contains(c.err, "traffic.jsonl:18: op check_mem: engines diverge on bytes: dst+0x0 (byte 0 of 4096): rtl "))
        << c.err;
    EXPECT_TRUE(Contains(c.err, ", rtl#2 ")) << c.err;
    EXPECT_FALSE(Contains(c.err, "on the rtl")) << "neither engine failed: " << c.err;
    EXPECT_TRUE(Contains(c.out, "FAIL traffic.jsonl: 21 ops, stopped at line 18: rtl ok, rtl#2 ok, engines diverge;"))
        << c.out;
    EXPECT_FALSE(Contains(c.out, "poll_cq cqa:")) << "without -v no engine's own lines: " << c.out;
    JsonFile j(json);
    ASSERT_NE(j.doc, nullptr);
    EXPECT_EQ("fail", Str(j.get("result")));
    const json_value_t *d = json_get(j.get("both"), "divergence");
    ASSERT_NE(d, nullptr);
    ASSERT_EQ(JSON_OBJECT, d->type);
    EXPECT_EQ(18, Num(json_get(d, "line")));
    EXPECT_EQ("check_mem", Str(json_get(d, "op")));
    EXPECT_EQ("bytes: dst+0x0 (byte 0 of 4096)", Str(json_get(d, "field")));
    EXPECT_NE(Str(json_get(d, "rtl")), Str(json_get(d, "model")));
    EXPECT_EQ(18, Num(json_get(j.get("both"), "ops_run"))) << "stopped at the divergence";
    EXPECT_TRUE(Contains(Str(json_get(j.get("failure"), "message")), "engines diverge on bytes"));
}

// --waves-on-fail on a divergence: the reference (the RTL, seed 5) re-runs
// traced around the diverging op, and the re-run ends as the reference did
// (it passed that op: a divergence fails neither engine).
TEST(ScenarioBoth, ADivergenceLeavesWavesAroundTheDivergingOp)
{
    Loaded l(kTraffic);
    ASSERT_NE(l.s, nullptr);
    const std::string json = Path("w.json"), dir = Path("waves");
    Captured c;
    scn_run_opts_t a{}, b{};
    a.engine = b.engine = SCN_ENGINE_RTL;
    b.seed_set = 1;
    b.seed = 6;
    a.json_out = json.c_str();
    a.waves_dir = dir.c_str();
    a.waves_window_set = 1;
    a.waves_before = 200;
    a.waves_after = 50;
    a.out = c.o;
    a.err = c.e;
    EXPECT_EQ(SCN_FAIL, scn_run_pair_watched(l.s, &a, &b));
    c.Close();
    EXPECT_TRUE(Contains(c.err, "traffic.jsonl:18: op check_mem: engines diverge on bytes")) << c.err;
    JsonFile j(json);
    ASSERT_NE(j.doc, nullptr);
    const json_value_t *w = j.get("waves");
    ASSERT_NE(w, nullptr) << c.out;
    EXPECT_EQ("rtl", Str(json_get(w, "engine")));
    const json_value_t *rep = json_get(w, "reproduced");
    ASSERT_NE(rep, nullptr);
    EXPECT_TRUE(rep->type == JSON_BOOL && rep->u.boolean) << "the RTL re-run passes line 18 as the reference did";
    const json_value_t *m = json_get(w, "markers");
    ASSERT_NE(json_get(m, "diverge"), nullptr) << c.out;
    ASSERT_NE(json_get(m, "op_start"), nullptr) << c.out;
    const double at = Num(json_get(m, "diverge")), from = Num(json_get(m, "op_start"));
    EXPECT_LE(from, at);
    const json_value_t *win = json_get(w, "windows")->u.array.items[0];
    EXPECT_EQ(from - 200, Num(win->u.array.items[0])) << "200 cycles before the op began";
    EXPECT_EQ(at + 50 + 1, Num(win->u.array.items[1])) << "50 after it ended";
    struct stat st;
    EXPECT_EQ(0, stat((dir + "/traffic.fst").c_str(), &st));
    EXPECT_GT(st.st_size, 0);
    EXPECT_TRUE(Contains(c.out, "view: gtkwave " + dir + "/traffic.gtkw")) << c.out;
}

TEST(ScenarioBoth, AFailureOnBothEnginesIsSaidOnce)
{
    std::string text = std::string(kTraffic) + R"({"op":"check_mr","mr":"md","expect":{"state":"FREE"}})" + "\n";
    Loaded l(text.c_str());
    ASSERT_NE(l.s, nullptr);
    Captured c;
    scn_run_opts_t a{}, b{};
    a.engine = b.engine = SCN_ENGINE_RTL;
    a.out = c.o;
    a.err = c.e;
    EXPECT_EQ(SCN_FAIL, scn_run_pair(l.s, &a, &b));
    c.Close();
    EXPECT_EQ("traffic.jsonl:22: op check_mr: MPT[2] of md: expected state FREE, got VALID (on both engines)\n", c.err);
    EXPECT_TRUE(Contains(c.out, "stopped at line 22: rtl MISMATCH, rtl#2 MISMATCH;")) << c.out;
}

// ---------------------------------------------------------------- the command line

size_t Count(const std::string &hay, const std::string &needle)
{
    size_t n = 0;
    for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1))
        n++;
    return n;
}

TEST(ScenarioBoth, MalformedFileIsReportedOnce)
{
    std::string f = std::string(SCN_VECTORS) + "/malformed/unknown_op.jsonl";
    Result r = Hcasim("run " + f + " --engine both");
    EXPECT_EQ(2, r.rc) << r.out;
    EXPECT_EQ(1u, Count(r.out, f + ":3: ")) << r.out;
}

TEST(ScenarioBoth, TheDemoAgreesOnTheRtlAndTheModel)
{
    // The real pair: every op's observations equal, and the model's latency
    // (post to CQE) the RTL's to the cycle, in the output and in --json.
    std::string json = Path("r.json");
    Result r = Hcasim(std::string("run ") + SCN_VECTORS + "/demo.jsonl --engine both --json " + json);
    EXPECT_EQ(0, r.rc) << r.out;
    EXPECT_TRUE(Contains(r.out, "engines rtl+model agree")) << r.out;
    EXPECT_TRUE(Contains(r.out, "median 0.0%, p95 0.0%, max 0.0%")) << r.out;
    JsonFile j(json);
    ASSERT_NE(j.doc, nullptr) << r.out;
    EXPECT_EQ("pass", Str(j.get("result")));
    EXPECT_EQ("pass", Str(json_get(json_get(j.get("both"), "rtl"), "result")));
    EXPECT_EQ("pass", Str(json_get(json_get(j.get("both"), "model"), "result")));
}

} // namespace
