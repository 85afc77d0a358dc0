// Golden-vector replay: vectors/xlate/*.vec (docs/xlate-vectors.md), written by
// the Python reference model, run through sim/harness/xu.h on each engine (RTL and C
// model), with and without random back-pressure. Every beat must match.
//
// The .vec folder: $XU_VEC_DIR if set, else vectors/xlate under the current
// directory (make runs from the repo root), else the folder of the repo this
// binary was built in (XU_VEC_DIR_DEFAULT, set by vectors/vectors.mk).
#include <gtest/gtest.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "xu.h"

#ifndef XU_VEC_DIR_DEFAULT
#define XU_VEC_DIR_DEFAULT "vectors/xlate"
#endif

namespace {

// ------------------------------------------------------------------ .vec parser

enum class Rec { Mpt, Mtt, Inv, Req, Exp };

struct Record {
    Rec kind = Rec::Req;
    unsigned line = 0;           // 1-based line in the file
    uint32_t index = 0;      // mpt, mtt, inv
    uint32_t words[10] = {}; // mpt: MPT_DATA0..9; mtt: MTT_DATA0..1
    xu_req_t req = {};       // req
    xu_seg_t exp = {};       // exp (cycle unused)
    size_t of_req = 0;       // exp: record index of the request it answers
    unsigned beat = 0;       // exp: 0-based beat number within its request
};

struct VecFile {
    std::string path;
    std::vector<Record> recs;
    size_t requests = 0, beats = 0;
};

std::vector<std::string> split_fields(const std::string &s)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t sp = s.find(' ', start);
        out.push_back(s.substr(start, sp == std::string::npos ? std::string::npos : sp - start));
        if (sp == std::string::npos)
            return out;
        start = sp + 1;
    }
}

// Hex without 0x, at most `bits` bits wide. false on anything else.
bool parse_hex(const std::string &tok, unsigned bits, uint64_t *out)
{
    if (tok.empty() || tok.size() > 16)
        return false;
    uint64_t v = 0;
    for (char c : tok) {
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return false;
        v = v << 4 | d;
    }
    if (bits < 64 && (v >> bits) != 0)
        return false;
    *out = v;
    return true;
}

std::string fmt_req(const xu_req_t &r)
{
    char buf[192];
    snprintf(buf, sizeof buf,
             "tag=%#x key=%#" PRIx32 " pd=%#" PRIx32 " va=%#" PRIx64 " len=%#" PRIx32 " rights=%#x remote=%u",
             r.tag, r.key, r.pd, r.va, r.len, r.rights, r.remote);
    return buf;
}

std::string fmt_seg(const xu_seg_t &s)
{
    char buf[160];
    snprintf(buf, sizeof buf, "tag=%#x %s(%u) pa=%#" PRIx64 " len=%#" PRIx32 " last=%u", s.tag,
             xu_status_name(s.status), s.status, s.pa, s.len, s.last);
    return buf;
}

struct Spec {
    const char *name;
    unsigned bits;
};

// Parse a whole .vec file. "" on success, else "path:line: what is wrong".
std::string parse_vec(const std::string &path, VecFile *vf)
{
    vf->path = path;
    vf->recs.clear();
    vf->requests = vf->beats = 0;
    std::ifstream in(path);
    if (!in)
        return path + ": cannot open";
    std::deque<size_t> open; // requests whose last beat is not yet listed
    unsigned front_beats = 0; // exp records listed so far for open.front()
    std::string text;
    unsigned lineno = 0;
    auto bad = [&](unsigned line, const std::string &why) {
        return path + ":" + std::to_string(line) + ": " + why;
    };
    while (std::getline(in, text)) {
        lineno++;
        if (!text.empty() && text[0] == '#')
            continue;
        std::vector<std::string> f = split_fields(text);
        const std::string &op = f[0];
        Record r;
        r.line = lineno;
        // {field name, width in bits} of each field after the record name
        static const Spec kMpt[] = {{"IDX", HCA_TABLE_INDEX_BITS}, {"W0", 32}, {"W1", 32}, {"W2", 32}, {"W3", 32},
                                    {"W4", 32}, {"W5", 32}, {"W6", 32}, {"W7", 32}, {"W8", 32}, {"W9", 32}};
        static const Spec kMtt[] = {{"IDX", HCA_TABLE_INDEX_BITS}, {"LO", 32}, {"HI", 32}};
        static const Spec kInv[] = {{"IDX", HCA_TABLE_INDEX_BITS}};
        static const Spec kReq[] = {{"TAG", HCA_XU_TAG_BITS}, {"KEY", HCA_KEY_BITS}, {"PD", 32}, {"VA", 64},
                                    {"LEN", HCA_XU_LEN_BITS}, {"RIGHTS", 4}, {"REMOTE", 1}};
        static const Spec kExp[] = {{"TAG", HCA_XU_TAG_BITS}, {"STATUS", HCA_XLATE_STATUS_WIDTH}, {"PA", 64},
                                    {"LEN", HCA_XU_LEN_BITS}, {"LAST", 1}};
        static const struct {
            const char *op;
            Rec kind;
            const Spec *fields;
            size_t n;
        } kRecords[] = {{"mpt", Rec::Mpt, kMpt, std::size(kMpt)}, {"mtt", Rec::Mtt, kMtt, std::size(kMtt)},
                        {"inv", Rec::Inv, kInv, std::size(kInv)}, {"req", Rec::Req, kReq, std::size(kReq)},
                        {"exp", Rec::Exp, kExp, std::size(kExp)}};
        const Spec *spec = nullptr;
        size_t nspec = 0;
        for (const auto &k : kRecords)
            if (op == k.op) {
                r.kind = k.kind;
                spec = k.fields;
                nspec = k.n;
            }
        if (!spec)
            return bad(lineno, "unknown record '" + op + "' (want mpt, mtt, inv, req, exp or a # comment)");
        if (f.size() != nspec + 1)
            return bad(lineno, "'" + op + "' takes " + std::to_string(nspec) + " fields separated by one space, got " +
                                   std::to_string(f.size() - 1) + ": '" + text + "'");
        uint64_t v[11];
        for (size_t i = 0; i < nspec; i++)
            if (!parse_hex(f[i + 1], spec[i].bits, &v[i]))
                return bad(lineno, std::string("field ") + spec[i].name + " '" + f[i + 1] + "' is not hex (no 0x) of at most " +
                                       std::to_string(spec[i].bits) + " bits");
        switch (r.kind) {
        case Rec::Mpt:
        case Rec::Mtt:
        case Rec::Inv:
            if (!open.empty())
                return bad(lineno, "table record while the request at line " + std::to_string(vf->recs[open.front()].line) +
                                       " still lacks its last exp");
            r.index = (uint32_t)v[0];
            for (size_t i = 1; i < nspec; i++)
                r.words[i - 1] = (uint32_t)v[i];
            break;
        case Rec::Req:
            r.req.tag = (uint8_t)v[0];
            r.req.key = (uint32_t)v[1];
            r.req.pd = (uint32_t)v[2];
            r.req.va = v[3];
            r.req.len = (uint32_t)v[4];
            r.req.rights = (uint8_t)v[5];
            r.req.remote = (uint8_t)v[6];
            open.push_back(vf->recs.size());
            vf->requests++;
            break;
        case Rec::Exp:
            r.exp.tag = (uint8_t)v[0];
            r.exp.status = (uint8_t)v[1];
            r.exp.pa = v[2];
            r.exp.len = (uint32_t)v[3];
            r.exp.last = (uint8_t)v[4];
            if (open.empty())
                return bad(lineno, "exp with no request waiting for a beat");
            r.of_req = open.front();
            if (r.exp.tag != vf->recs[r.of_req].req.tag)
                return bad(lineno, "exp tag " + f[1] + " is not the tag of the oldest open request (line " +
                                       std::to_string(vf->recs[r.of_req].line) + ")");
            r.beat = front_beats++;
            if (r.exp.last) {
                open.pop_front();
                front_beats = 0;
            }
            vf->beats++;
            break;
        }
        vf->recs.push_back(r);
    }
    if (!open.empty())
        return bad(vf->recs[open.front()].line, "request without its last exp at end of file");
    return "";
}

// ------------------------------------------------------------------ replay

struct Param {
    xu_engine_kind_t kind;
    const char *file;
    unsigned req_gap_pct, rsp_stall_pct;
};

void PrintTo(const Param &p, std::ostream *os)
{
    *os << (p.kind == XU_ENGINE_RTL ? "rtl " : "model ") << p.file << " req_gap " << p.req_gap_pct << "% rsp_stall "
        << p.rsp_stall_pct << "%";
}

std::string vec_dir()
{
    if (const char *e = getenv("XU_VEC_DIR"))
        return e;
    if (std::ifstream("vectors/xlate/directed.vec"))
        return "vectors/xlate";
    return XU_VEC_DIR_DEFAULT;
}

// Cycles without a beat before a replay gives up on the next expected one.
constexpr uint64_t kStallLimit = 200000;
constexpr uint64_t kCmdTimeout = 200000;

class Replay {
public:
    Replay(xu_t *xu, const VecFile &vf, const std::string &where) : xu_(xu), vf_(vf), where_(where) {}

    // Run the whole file; false after the first failure (already reported).
    bool run()
    {
        for (size_t i = 0; i < vf_.recs.size(); i++) {
            const Record &r = vf_.recs[i];
            switch (r.kind) {
            case Rec::Req: {
                int rc;
                while ((rc = xu_submit(xu_, &r.req)) == -ENOSPC)
                    if (!step())
                        return false;
                if (rc != 0)
                    return fail(r, "xu_submit returned " + std::to_string(rc));
                break;
            }
            case Rec::Exp:
                pending_.push_back(i);
                break;
            case Rec::Mpt:
            case Rec::Mtt:
            case Rec::Inv:
                if (!drain() || !table(r))
                    return false;
                break;
            }
        }
        if (!drain())
            return false;
        // Nothing more may come out.
        for (int i = 0; i < 64; i++)
            if (!step())
                return false;
        return true;
    }

    size_t matched() const { return matched_; }

private:
    bool fail(const Record &r, const std::string &why)
    {
        ADD_FAILURE() << vf_.path << ":" << r.line << ": " << why << "\n  " << where_;
        return false;
    }

    // One cycle, then check every beat that came out.
    bool step()
    {
        xu_step(xu_, 1);
        xu_seg_t got;
        while (xu_collect(xu_, &got) == 1) {
            if (pending_.empty()) {
                ADD_FAILURE() << vf_.path << ":" << (last_exp_ ? last_exp_->line : 0)
                              << ": unexpected beat after the beat of this exp, none expected: " << fmt_seg(got)
                              << " (cycle " << got.cycle << ")\n  " << where_;
                return false;
            }
            const Record &e = vf_.recs[pending_.front()];
            if (got.tag != e.exp.tag || got.status != e.exp.status || got.pa != e.exp.pa || got.len != e.exp.len ||
                got.last != e.exp.last) {
                const Record &q = vf_.recs[e.of_req];
                ADD_FAILURE() << vf_.path << ":" << e.line << ": beat " << e.beat << " of the request at line " << q.line
                              << " differs\n  request:  " << fmt_req(q.req) << "\n  expected: " << fmt_seg(e.exp)
                              << "\n  actual:   " << fmt_seg(got) << " (cycle " << got.cycle << ")\n  after "
                              << matched_ << " matching beats; " << where_;
                return false;
            }
            last_exp_ = &e;
            pending_.pop_front();
            matched_++;
            idle_ = 0;
        }
        if (!pending_.empty() && ++idle_ > kStallLimit) {
            const Record &e = vf_.recs[pending_.front()];
            return fail(e, "no beat for " + std::to_string(kStallLimit) + " cycles; expected " + fmt_seg(e.exp) +
                               " for the request at line " + std::to_string(vf_.recs[e.of_req].line) + " (" +
                               fmt_req(vf_.recs[e.of_req].req) + "), " + std::to_string(xu_pending(xu_)) +
                               " requests not yet accepted");
        }
        return true;
    }

    bool drain()
    {
        idle_ = 0;
        while (!pending_.empty())
            if (!step())
                return false;
        return true;
    }

    bool command(const Record &r, unsigned op, const char *what)
    {
        int rc = xu_cmd_start(xu_, op, r.index);
        unsigned result = 0;
        if (rc == 0)
            rc = xu_cmd_wait(xu_, kCmdTimeout, &result);
        if (rc != 0)
            return fail(r, std::string(what) + ": harness returned " + std::to_string(rc));
        if (result != HCA_FWP_RESULT_OK)
            return fail(r, std::string(what) + ": firmware port result " + std::to_string(result));
        return true;
    }

    bool table(const Record &r)
    {
        if (r.kind == Rec::Inv) {
            int rc = xu_invalidate(xu_, r.index);
            return rc == 0 || fail(r, "xu_invalidate returned " + std::to_string(rc));
        }
        bool mpt = r.kind == Rec::Mpt;
        unsigned n = mpt ? HCA_FWP_MPT_DATA_COUNT : HCA_FWP_MTT_DATA_COUNT;
        uint32_t base = mpt ? HCA_FWP_MPT_DATA : HCA_FWP_MTT_DATA;
        for (unsigned i = 0; i < n; i++) {
            int rc = xu_fw_write(xu_, base + 4 * i, r.words[i]);
            if (rc != 0)
                return fail(r, "staging word " + std::to_string(i) + ": xu_fw_write returned " + std::to_string(rc));
        }
        return mpt ? command(r, HCA_FWP_OP_WRITE_MPT, "WRITE_MPT") : command(r, HCA_FWP_OP_WRITE_MTT, "WRITE_MTT");
    }

    xu_t *xu_;
    const VecFile &vf_;
    std::string where_;
    std::deque<size_t> pending_; // exp records not yet matched
    const Record *last_exp_ = nullptr;
    size_t matched_ = 0;
    uint64_t idle_ = 0;
};

class XuVectors : public ::testing::TestWithParam<Param> {};

TEST_P(XuVectors, EveryBeatMatchesTheReference)
{
    const Param &p = GetParam();
    VecFile vf;
    std::string path = vec_dir() + "/" + p.file;
    std::string err = parse_vec(path, &vf);
    ASSERT_EQ("", err) << "malformed vector file";
    ASSERT_GT(vf.beats, 0u) << path << ": no exp record";

    xu_t *xu = nullptr;
    ASSERT_EQ(0, xu_create(&xu, p.kind, nullptr)) << "xu_create";
    xu_reset(xu);
    uint64_t seed = 0x5eed0000u + (uint64_t)p.kind * 0x100 + std::string(p.file).size();
    if (const char *s = getenv("XU_VEC_SEED"))
        seed = strtoull(s, nullptr, 0);
    ASSERT_EQ(0, xu_set_backpressure(xu, p.req_gap_pct, p.rsp_stall_pct, seed));
    char where[160];
    snprintf(where, sizeof where, "engine %s, back-pressure req_gap %u%% rsp_stall %u%% seed %#" PRIx64 " (XU_VEC_SEED)",
             xu_engine_name(xu), p.req_gap_pct, p.rsp_stall_pct, seed);

    uint64_t c0 = xu_cycle(xu);
    Replay rp(xu, vf, where);
    bool ok = rp.run();
    uint64_t cycles = xu_cycle(xu) - c0;
    printf("[ vectors  ] %s on %s, gap %u%% stall %u%%: %zu requests, %zu/%zu beats matched, %" PRIu64 " cycles\n",
           p.file, xu_engine_name(xu), p.req_gap_pct, p.rsp_stall_pct, vf.requests, rp.matched(), vf.beats, cycles);
    RecordProperty("beats_matched", (int)rp.matched());
    RecordProperty("cycles", std::to_string(cycles));
    xu_destroy(xu);
    EXPECT_TRUE(ok);
    EXPECT_GT(rp.matched(), 0u);
    EXPECT_EQ(vf.beats, rp.matched());
}

// Per engine and file: streaming, moderate and heavy back-pressure.
const Param kParams[] = {
    {XU_ENGINE_RTL, "directed.vec", 0, 0},   {XU_ENGINE_RTL, "directed.vec", 30, 40},
    {XU_ENGINE_RTL, "directed.vec", 50, 75}, {XU_ENGINE_RTL, "random.vec", 0, 0},
    {XU_ENGINE_RTL, "random.vec", 25, 30},   {XU_ENGINE_RTL, "random.vec", 50, 75},
    {XU_ENGINE_MODEL, "directed.vec", 0, 0}, {XU_ENGINE_MODEL, "directed.vec", 30, 40},
    {XU_ENGINE_MODEL, "directed.vec", 50, 75}, {XU_ENGINE_MODEL, "random.vec", 0, 0},
    {XU_ENGINE_MODEL, "random.vec", 25, 30}, {XU_ENGINE_MODEL, "random.vec", 50, 75},
};

std::string param_name(const ::testing::TestParamInfo<Param> &info)
{
    const Param &p = info.param;
    std::string f = p.file;
    f = f.substr(0, f.find('.'));
    const char *bp = p.req_gap_pct == 0 && p.rsp_stall_pct == 0 ? "_streaming"
                     : p.rsp_stall_pct >= 50                     ? "_heavy_backpressure"
                                                                  : "_backpressure";
    return std::string(p.kind == XU_ENGINE_RTL ? "rtl" : "model") + "_" + f + bp;
}

INSTANTIATE_TEST_SUITE_P(Golden, XuVectors, ::testing::ValuesIn(kParams), param_name);

// ------------------------------------------------------------------ parser tests

std::string write_temp(const std::string &name, const std::string &text)
{
    std::string path = ::testing::TempDir() + "xu_vectors_" + name + ".vec";
    std::ofstream(path) << text;
    return path;
}

const char *kGoodReq = "req 7 105 123 1000 10 1 0\n";

TEST(XuVectorsParse, WellFormedFile)
{
    std::string path = write_temp("good",
                                  "# comment\n"
                                  "mpt 1 c0f03 15a 123 10 1234 7f00 4000 0 5 0\n"
                                  "mtt 10 12345001 0\n"
                                  "inv 1\n"
                                  "req 7 105 123 FFFFFFFFFFFFFFFF ffffffff f 1\n"
                                  "req 8 1 0 0 0 0 0\n"
                                  "exp 7 0 1000 dcc 0\n"
                                  "exp 7 7 0 0 1\n"
                                  "exp 8 0 0 0 1\n");
    VecFile vf;
    ASSERT_EQ("", parse_vec(path, &vf));
    ASSERT_EQ(8u, vf.recs.size());
    EXPECT_EQ(2u, vf.requests);
    EXPECT_EQ(3u, vf.beats);
    EXPECT_EQ(0x7f00u, vf.recs[0].words[5]);
    EXPECT_EQ(0x12345001u, vf.recs[1].words[0]);
    EXPECT_EQ(UINT64_MAX, vf.recs[3].req.va);
    EXPECT_EQ(1u, vf.recs[3].req.remote);
    EXPECT_EQ(3u, vf.recs[5].of_req);
    EXPECT_EQ(1u, vf.recs[6].beat);
    EXPECT_EQ(8u, vf.recs[6].line);
    EXPECT_EQ(4u, vf.recs[7].of_req);
}

TEST(XuVectorsParse, MalformedLineIsReportedWithFileAndLine)
{
    struct Case {
        const char *name, *text;
        unsigned line;
    } cases[] = {
        {"unknown", "# x\nfoo 1\n", 2},
        {"few", "req 1 2 3\n", 1},
        {"many", "inv 1 2\n", 1},
        {"nonhex", "req zz 105 123 1000 10 1 0\n", 1},
        {"prefix", "req 0x7 105 123 1000 10 1 0\n", 1},
        {"wide_tag", "req 100 105 123 1000 10 1 0\n", 1},
        {"wide_va", "req 7 105 123 10000000000000000 10 1 0\n", 1},
        {"remote2", "req 7 105 123 1000 10 1 2\n", 1},
        {"last2", "req 7 105 123 1000 10 1 0\nexp 7 0 0 0 2\n", 2},
        {"double_space", "req 7  105 123 1000 10 1 0\n", 1},
        {"trailing_space", "inv 1 \n", 1},
        {"empty", "inv 1\n\ninv 2\n", 2},
        {"orphan_exp", "inv 1\nexp 7 0 0 0 1\n", 2},
        {"wrong_tag", "req 7 105 123 1000 10 1 0\nreq 8 105 123 1000 10 1 0\nexp 8 0 0 0 1\n", 3},
        {"table_while_open", "req 7 105 123 1000 10 1 0\nexp 7 0 1000 10 0\nmtt 1 0 0\n", 3},
        {"open_at_eof", "inv 3\nreq 7 105 123 1000 10 1 0\n", 2},
    };
    for (const Case &c : cases) {
        std::string path = write_temp(c.name, c.text);
        VecFile vf;
        std::string err = parse_vec(path, &vf);
        std::string want = path + ":" + std::to_string(c.line) + ": ";
        EXPECT_EQ(0u, err.rfind(want, 0)) << c.name << ": got '" << err << "', want it to start with '" << want << "'";
    }
    VecFile vf;
    EXPECT_EQ("", parse_vec(write_temp("ok", std::string(kGoodReq) + "exp 7 0 1000 10 1\n"), &vf));
    EXPECT_NE("", parse_vec(::testing::TempDir() + "xu_vectors_no_such_file.vec", &vf));
}

TEST(XuVectorsParse, CommittedFilesParse)
{
    for (const char *f : {"directed.vec", "random.vec"}) {
        VecFile vf;
        EXPECT_EQ("", parse_vec(vec_dir() + "/" + f, &vf));
        EXPECT_GT(vf.beats, 0u) << f;
        EXPECT_GT(vf.requests, 0u) << f;
    }
}

} // namespace
