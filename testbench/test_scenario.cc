// test_scenario.cc — `hcasim run` as its users see it: every malformed file of
// vectors/malformed/ refused with exit 2 and "FILE:LINE: reason" (each file's
// first line says which), a passing scenario exits 0, a mismatch 1 with
// FILE:LINE, the --json result parses back, validation happens before anything
// runs, and ops the device does not serve yet answer "not available".
#include <gtest/gtest.h>

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "json.h"
#include "scenario.h"
#include "scn_test.h"

namespace {

using namespace scn_test;

std::string TempPath(const std::string &name)
{
    const ::testing::TestInfo *t = ::testing::UnitTest::GetInstance()->current_test_info();
    mkdir(SCN_TMP, 0777);
    return std::string(SCN_TMP "/scn_") + t->name() + "_" + name;
}

std::string Write(const std::string &name, const std::vector<std::string> &lines)
{
    std::string path = TempPath(name);
    std::ofstream f(path);
    for (auto &l : lines)
        f << l << "\n";
    return path;
}

// A registration scenario that passes on both engines today.
const std::vector<std::string> kPassing = {
    "# registration through the mailbox",
    R"({"op":"device","seed":7})",
    R"({"op":"query_device","expect":{"reserved_lkey":1}})",
    R"({"op":"alloc_pd","pd":"pd0"})",
    R"({"op":"host_alloc","buf":"b0","size":16384,"fill":"pattern"})",
    R"({"op":"reg_mr","mr":"m0","pd":"pd0","buf":"b0","offset":256,"length":8192,"access":["LOCAL_WRITE","REMOTE_READ"]})",
    R"({"op":"check_mr","mr":"m0","expect":{"state":"VALID","kind":"REGULAR","length":8192,"pd":"pd0"}})",
    R"({"op":"check_mem","buf":"b0","offset":254,"hex":"feff0001"})",
    R"({"op":"dereg_mr","mr":"m0"})",
    R"({"op":"check_mr","mr":"m0","expect":{"allocated":false}})",
};

TEST(Scenario, MalformedVectorsExit2WithFileLineAndReason)
{
    std::string dir = std::string(SCN_VECTORS) + "/malformed";
    DIR *d = opendir(dir.c_str());
    ASSERT_NE(d, nullptr) << dir;
    std::vector<std::string> files;
    while (dirent *e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 6 && n.substr(n.size() - 6) == ".jsonl")
            files.push_back(dir + "/" + n);
    }
    closedir(d);
    ASSERT_GE(files.size(), 30u);
    for (auto &f : files) {
        // First line: "# expect: line N: MESSAGE"
        std::string head = Slurp(f).substr(0, Slurp(f).find('\n'));
        ASSERT_EQ(head.rfind("# expect: line ", 0), 0u) << f << ": first line must say what is expected";
        size_t colon = head.find(": ", 15);
        std::string line = head.substr(15, colon - 15), msg = head.substr(colon + 2);
        std::string want = f + ":" + line + ": " + msg;
        Result r = Hcasim("run " + f);
        EXPECT_EQ(r.rc, 2) << f << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, want)) << "expected: " << want << "\ngot: " << r.out;
        EXPECT_FALSE(Contains(r.out, "PASS")) << f;
        // The library says the same.
        scn_t *s = nullptr;
        char err[1024];
        EXPECT_EQ(scn_load(f.c_str(), &s, err, sizeof err), SCN_ERROR) << f;
        EXPECT_EQ(s, nullptr);
        EXPECT_TRUE(Contains(err, want)) << err;
    }
}

std::vector<std::string> JsonlFiles(const std::string &dir)
{
    std::vector<std::string> files;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 6 && n.substr(n.size() - 6) == ".jsonl")
                files.push_back(dir + "/" + n);
        }
        closedir(d);
    }
    return files;
}

TEST(Scenario, DirectedScenariosAreValid)
{
    auto files = JsonlFiles(std::string(SCN_VECTORS) + "/directed");
    files.push_back(std::string(SCN_VECTORS) + "/demo.jsonl");
    ASSERT_GE(files.size(), 25u);
    for (auto &f : files) {
        Result r = Hcasim("run " + f + " --validate");
        EXPECT_EQ(r.rc, 0) << r.out;
        EXPECT_TRUE(Contains(r.out, "VALID " + f)) << r.out;
    }
}

TEST(Scenario, ValidationHappensBeforeAnythingRuns)
{
    // late_typo.jsonl runs ten billion cycles before its typo: refused at once.
    Result r = Hcasim(std::string("run ") + SCN_VECTORS + "/malformed/late_typo.jsonl");
    EXPECT_EQ(r.rc, 2);
    EXPECT_TRUE(Contains(r.out, "late_typo.jsonl:6: op check_mem: field \"bufer\": unknown field")) << r.out;
    EXPECT_FALSE(Contains(r.out, "cycles, engine")) << "nothing may run: " << r.out;
}

TEST(Scenario, PassingScenarioExits0)
{
    std::string f = Write("pass.jsonl", kPassing);
    for (const char *engine : {"rtl", "model"}) {
        Result r = Hcasim("run " + f + " --engine " + engine);
        EXPECT_EQ(r.rc, 0) << engine << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, "PASS " + f + ": 9 ops")) << r.out;
        EXPECT_TRUE(Contains(r.out, std::string("engine ") + engine)) << r.out;
        // what the checker watched: the MR's birth (CREATE_MKEY) and death (DESTROY_MKEY), no queue traffic
        EXPECT_TRUE(Contains(r.out, "checker: 0 engine DMAs watched (0 through a key), 1 key invalidations and 1 "
                                    "registrations followed, 0 WRITE packets, 0 breaches; 0 fence waits, 0 drain "
                                    "waits, 0 refused after an invalidation\n"))
            << r.out;
    }
}

TEST(Scenario, MismatchExits1AtItsLine)
{
    auto lines = kPassing;
    lines[7] = R"({"op":"check_mem","buf":"b0","offset":254,"hex":"feff0002"})"; // line 8
    lines.push_back(R"({"op":"run","cycles":1})");
    std::string f = Write("mismatch.jsonl", lines);
    Result r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":8: op check_mem: b0+0x101 (byte 3 of 4): expected 02…, got 01…")) << r.out;
    EXPECT_TRUE(Contains(r.out, "FAIL " + f)) << r.out;
    EXPECT_TRUE(Contains(r.out, "stopped at the first mismatch")) << r.out;

    lines = kPassing;
    lines[2] = R"({"op":"query_device","expect":{"reserved_lkey":"0x100"}})";
    f = Write("mismatch2.jsonl", lines);
    r = Hcasim("run " + f + " --engine model");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":3: op query_device: expected reserved_lkey 0x100 (256), got 0x1 (1)")) << r.out;

    lines = kPassing;
    lines[6] = R"({"op":"check_mr","mr":"m0","expect":{"state":"FREE"}})";
    f = Write("mismatch3.jsonl", lines);
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":7: op check_mr: MPT[1] of m0: expected state FREE, got VALID")) << r.out;

    // A registration that must fail but succeeds, and one that must succeed but fails.
    lines = kPassing;
    lines[5] = R"({"op":"reg_mr","mr":"m0","pd":"pd0","buf":"b0","length":64,"access":["LOCAL_WRITE"],"expect_error":"EINVAL"})";
    lines.resize(6);
    f = Write("mismatch4.jsonl", lines);
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":6: op reg_mr: expected reg_mr to return EINVAL, got OK")) << r.out;
    lines[5] = R"({"op":"reg_mr","mr":"m0","pd":"pd0","buf":"b0","length":64,"access":["REMOTE_WRITE"]})";
    f = Write("mismatch5.jsonl", lines);
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":6: op reg_mr: expected reg_mr to return OK, got EINVAL")) << r.out;
}

TEST(Scenario, JsonResultParsesBack)
{
    std::string f = Write("pass.jsonl", kPassing), out = TempPath("pass.json");
    Result r = Hcasim("run " + f + " --json " + out + " --seed 99");
    ASSERT_EQ(r.rc, 0) << r.out;
    {
        JsonFile j(out);
        ASSERT_NE(j.doc, nullptr);
        EXPECT_EQ(Str(j.get("file")), f);
        EXPECT_EQ(Str(j.get("engine")), "rtl");
        EXPECT_EQ(Str(j.get("result")), "pass");
        uint64_t seed = 0, cycles = 0;
        EXPECT_EQ(json_as_u64(j.get("seed"), &seed), 0);
        EXPECT_EQ(seed, 99u); // --seed overrides the device op's 7
        EXPECT_EQ(json_as_u64(j.get("cycles"), &cycles), 0);
        EXPECT_GT(cycles, 1000u);
        ASSERT_NE(j.get("failure"), nullptr);
        EXPECT_EQ(j.get("failure")->type, JSON_NULL);
        ASSERT_NE(j.get("wrs"), nullptr);
        EXPECT_EQ(j.get("wrs")->type, JSON_ARRAY);
        const json_value_t *chk = j.get("checker");
        ASSERT_NE(chk, nullptr);
        uint64_t inv = 9, reg = 9, breaches = 9, dma = 9;
        EXPECT_EQ(json_as_u64(json_get(chk, "invalidations"), &inv), 0);
        EXPECT_EQ(json_as_u64(json_get(chk, "registrations"), &reg), 0);
        EXPECT_EQ(json_as_u64(json_get(chk, "breaches"), &breaches), 0);
        EXPECT_EQ(json_as_u64(json_get(chk, "dma"), &dma), 0);
        for (const char *k : {"fence_waits", "drain_waits", "refused_after_inv"}) {
            uint64_t v = 9;
            EXPECT_EQ(json_as_u64(json_get(chk, k), &v), 0) << k;
            EXPECT_EQ(0u, v) << k << ": no invalidation raced anything";
        }
        EXPECT_EQ(1u, inv) << "DESTROY_MKEY";
        EXPECT_EQ(1u, reg) << "CREATE_MKEY";
        EXPECT_EQ(0u, breaches);
        EXPECT_EQ(0u, dma) << "no queue traffic";
    }
    auto lines = kPassing;
    lines.resize(5);
    lines.push_back(R"({"op":"check_mem","buf":"b0","offset":0,"hex":"01"})"); // line 6; byte 0 of the pattern is 00
    f = Write("fail.jsonl", lines);
    out = TempPath("fail.json");
    r = Hcasim("run " + f + " --json " + out + " --engine model");
    ASSERT_EQ(r.rc, 1) << r.out;
    {
        JsonFile j(out);
        ASSERT_NE(j.doc, nullptr);
        EXPECT_EQ(Str(j.get("result")), "fail");
        EXPECT_EQ(Str(j.get("engine")), "model");
        const json_value_t *fail = j.get("failure");
        ASSERT_NE(fail, nullptr);
        uint64_t line = 0;
        EXPECT_EQ(json_as_u64(json_get(fail, "line"), &line), 0);
        EXPECT_EQ(line, 6u);
        EXPECT_EQ(Str(json_get(fail, "op")), "check_mem");
        EXPECT_TRUE(Contains(Str(json_get(fail, "message")), "expected 01")) << Str(json_get(fail, "message"));
    }
    // A file that cannot be loaded still writes its JSON result.
    out = TempPath("error.json");
    std::string bad = std::string(SCN_VECTORS) + "/malformed/unknown_op.jsonl";
    r = Hcasim("run " + bad + " --json " + out);
    ASSERT_EQ(r.rc, 2);
    JsonFile j(out);
    ASSERT_NE(j.doc, nullptr);
    EXPECT_EQ(Str(j.get("result")), "error");
    uint64_t line = 0;
    EXPECT_EQ(json_as_u64(json_get(j.get("failure"), "line"), &line), 0);
    EXPECT_EQ(line, 3u);
}

// An unwritable --json path is a command-line error: refused before anything
// runs (exit 2, the path and the reason), also when the file cannot be loaded.
TEST(Scenario, UnwritableJsonRefusedBeforeTheRun)
{
    std::string f = Write("pass.jsonl", kPassing);
    Result r = Hcasim("run " + f + " --json /nonexistent/dir/r.json");
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(Contains(r.out, "--json /nonexistent/dir/r.json: No such file or directory")) << r.out;
    EXPECT_FALSE(Contains(r.out, "cycles, engine")) << "nothing may run: " << r.out;
    r = Hcasim(std::string("run ") + SCN_VECTORS + "/malformed/unknown_op.jsonl --json /nonexistent/dir/r.json");
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(Contains(r.out, "--json /nonexistent/dir/r.json: No such file or directory")) << r.out;
    // The library refuses it too, before the device starts.
    std::string text;
    for (auto &l : kPassing)
        text += l + "\n";
    scn_t *s = nullptr;
    char err[512];
    ASSERT_EQ(scn_load_text("mem.jsonl", text.data(), text.size(), &s, err, sizeof err), SCN_PASS) << err;
    char *obuf = nullptr, *ebuf = nullptr;
    size_t olen = 0, elen = 0;
    FILE *o = open_memstream(&obuf, &olen), *e = open_memstream(&ebuf, &elen);
    scn_run_opts_t opts{};
    opts.engine = SCN_ENGINE_MODEL;
    opts.json_out = "/nonexistent/dir/r.json";
    opts.out = o;
    opts.err = e;
    EXPECT_EQ(scn_run(s, &opts), SCN_ERROR);
    fclose(o);
    fclose(e);
    EXPECT_TRUE(Contains(ebuf, "--json /nonexistent/dir/r.json: No such file or directory")) << ebuf;
    EXPECT_FALSE(Contains(obuf, "cycles, engine")) << obuf;
    free(obuf);
    free(ebuf);
    scn_free(s);
}

TEST(Scenario, VerboseListsEveryOp)
{
    std::string f = Write("pass.jsonl", kPassing);
    Result r = Hcasim("run -v " + f);
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_TRUE(Contains(r.out, "line    6  reg_mr                   ok  lkey 0x")) << r.out;
    EXPECT_TRUE(Contains(r.out, "line   10  check_mr                 ok")) << r.out;
    Result q = Hcasim("run " + f);
    EXPECT_FALSE(Contains(q.out, "line    6")) << "one line per op only with -v: " << q.out;
}

TEST(Scenario, VerboseFailureShowsTheFirmware)
{
    // With -v a failed run ends with the firmware's state and console (for a
    // diagnosis: is it idle, or stuck in a command?); without -v it does not.
    auto lines = kPassing;
    lines[7] = R"({"op":"check_mem","buf":"b0","offset":254,"hex":"feff0002"})";
    std::string f = Write("fwconsole.jsonl", lines);
    for (const char *engine : {"rtl", "model"}) {
        // busy cycles are counted up to the device's cycle: never more than the cycles
        Result v = Hcasim("run -v " + f + " --engine " + engine);
        EXPECT_EQ(v.rc, 1) << engine << "\n" << v.out;
        unsigned long long busy = 0, cycles = 0;
        const size_t at = v.out.find(" instructions retired, busy ");
        ASSERT_NE(at, std::string::npos) << engine << "\n" << v.out;
        ASSERT_EQ(2, sscanf(v.out.c_str() + at, " instructions retired, busy %llu of %llu cycles", &busy, &cycles))
            << engine << "\n" << v.out;
        EXPECT_GT(busy, 0u) << engine;
        EXPECT_LE(busy, cycles) << engine << ": busy cycles above the cycles\n" << v.out;
    }
    Result r = Hcasim("run -v " + f);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, "firmware: ")) << r.out;
    EXPECT_TRUE(Contains(r.out, " instructions retired, busy ")) << r.out;
    EXPECT_TRUE(Contains(r.out, "  fw| hcafw: firmware core up")) << r.out;
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_FALSE(Contains(r.out, "fw| ")) << r.out;
    r = Hcasim("run -v " + Write("fwpass.jsonl", kPassing));
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_FALSE(Contains(r.out, "fw| ")) << "only failed runs: " << r.out;
}

// expect_counters: bounds checked against the device's counters (a DESTROY_MKEY
// of an MR nothing uses waits for nothing: every count 0), at its line; bad
// bounds are exit 2 before the run.
TEST(Scenario, ExpectCountersBoundsTheRaceCounters)
{
    auto lines = kPassing;
    lines.push_back(R"({"op":"expect_counters","fence_waits":{"max":0},"drain_waits":{"min":0,"max":0},)"
                    R"("refused_after_inv":{"max":0}})");
    std::string ok = Write("counters_ok.jsonl", lines);
    for (const char *engine : {"rtl", "model"}) {
        Result r = Hcasim("run -v " + ok + " --engine " + engine);
        EXPECT_EQ(r.rc, 0) << engine << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, "expect_counters          ok  fence_waits 0, drain_waits 0, refused_after_inv 0"))
            << r.out;
    }
    lines.back() = R"({"op":"expect_counters","drain_waits":{"min":1}})";
    std::string low = Write("counters_low.jsonl", lines);
    Result r = Hcasim("run " + low);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, "counters_low.jsonl:" + std::to_string(lines.size()) +
                                    ": op expect_counters: drain_waits: expected at least 1, got 0"))
        << r.out;
    const std::pair<const char *, const char *> bad[] = {
        {R"({"op":"expect_counters"})", "expected at least one of fence_waits, drain_waits, refused_after_inv"},
        {R"({"op":"expect_counters","fence_waits":{}})", "field \"fence_waits\": expected \"min\" and/or \"max\""},
        {R"({"op":"expect_counters","fence_waits":{"mn":1}})", "field \"fence_waits.mn\": unknown field (did you mean \"min\"?)"},
        {R"({"op":"expect_counters","fence_waits":{"min":3,"max":1}})", "field \"fence_waits.min\": 3 is above max 1"},
        {R"({"op":"expect_counters","fence_waits":3})", "fence_waits"},
        {R"({"op":"expect_counters","fences":{"min":1}})", "unknown field"},
    };
    for (const auto &b : bad) {
        lines.back() = b.first;
        Result e = Hcasim("run " + Write("counters_bad.jsonl", lines));
        EXPECT_EQ(e.rc, 2) << b.first << "\n" << e.out;
        EXPECT_TRUE(Contains(e.out, b.second)) << b.first << "\n" << e.out;
        EXPECT_FALSE(Contains(e.out, "cycles, engine")) << "nothing may run: " << e.out;
    }
}

// host_fill refills a range as host_alloc's fill would write it; check_mem
// "when" checks only the outcome it names of a polled WR, and refuses to
// guess about one not completed yet.
TEST(Scenario, HostFillAndCheckMemWhen)
{
    const std::vector<std::string> head = {
        R"({"op":"alloc_pd","pd":"pd0"})",
        R"({"op":"create_cq","cq":"cqa","depth":64})",
        R"({"op":"create_cq","cq":"cqb","depth":64})",
        R"({"op":"create_qp","qp":"qa","pd":"pd0","send_cq":"cqa","recv_cq":"cqa"})",
        R"({"op":"create_qp","qp":"qb","pd":"pd0","send_cq":"cqb","recv_cq":"cqb"})",
        R"({"op":"connect","qp":"qa","remote":"qb"})",
        R"({"op":"host_alloc","buf":"src","size":8192,"fill":"random"})",
        R"({"op":"host_alloc","buf":"dst","size":8192,"fill":"byte:0x11"})",
        R"({"op":"host_alloc","buf":"ref","size":8192})",
        R"({"op":"host_fill","buf":"ref","fill":"byte:0x11"})",
        R"({"op":"host_fill","buf":"ref","offset":4096,"length":4,"fill":"pattern"})",
        R"({"op":"check_mem","buf":"ref","offset":4094,"hex":"111100010203"})",
        R"({"op":"host_fill","buf":"ref","offset":4096,"length":4,"fill":"byte:0x11"})",
        R"({"op":"reg_mr","mr":"ms","pd":"pd0","buf":"src","access":[]})",
        R"({"op":"reg_mr","mr":"md","pd":"pd0","buf":"dst","access":["LOCAL_WRITE","REMOTE_WRITE"]})",
        R"({"op":"post_send","qp":"qa","wr_id":5,"opcode":"RDMA_WRITE","sge":[{"mr":"ms","length":8192}],"remote":{"mr":"md"}})",
    };
    auto lines = head;
    lines.push_back(R"({"op":"check_mem","buf":"dst","same_as":{"buf":"src"},"length":8192,"when":{"qp":"qa","wr_id":5,"status":"SUCCESS"}})");
    Result early = Hcasim("run " + Write("when_early.jsonl", lines));
    EXPECT_EQ(early.rc, 1) << early.out;
    EXPECT_TRUE(Contains(early.out, "when: wr_id 5 on qa has not completed (poll its CQE first)")) << early.out;
    lines.back() = R"({"op":"poll_cq","cq":"cqa","expect":[{"wr_id":5,"status":["SUCCESS","REM_ACCESS_ERR"]}]})";
    lines.push_back(R"({"op":"check_mem","buf":"dst","same_as":{"buf":"src"},"length":8192,"when":{"qp":"qa","wr_id":5,"status":"SUCCESS"}})");
    lines.push_back(R"({"op":"check_mem","buf":"dst","same_as":{"buf":"ref"},"length":8192,"when":{"qp":"qa","wr_id":5,"status":"REM_ACCESS_ERR"}})");
    for (const char *engine : {"rtl", "model"}) {
        Result r = Hcasim("run -v " + Write("when_ok.jsonl", lines) + " --engine " + engine);
        EXPECT_EQ(r.rc, 0) << engine << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, "check_mem                ok  8192 bytes as expected")) << r.out;
        EXPECT_TRUE(Contains(r.out, "check_mem                ok  not checked: wr_id 5 completed SUCCESS")) << r.out;
    }
    // the same bytes against the untouched copy, when SUCCESS: a mismatch at its line
    lines.push_back(R"({"op":"check_mem","buf":"dst","same_as":{"buf":"ref"},"length":8192,"when":{"qp":"qa","wr_id":5,"status":"SUCCESS"}})");
    Result bad = Hcasim("run " + Write("when_bad.jsonl", lines));
    EXPECT_EQ(bad.rc, 1) << bad.out;
    EXPECT_TRUE(Contains(bad.out, "when_bad.jsonl:" + std::to_string(lines.size()) + ": op check_mem: dst+0x0")) << bad.out;
    lines.back() = R"({"op":"check_mem","buf":"dst","same_as":{"buf":"ref"},"length":8192,"when":{"qp":"qa","wr_id":6,"status":"SUCCESS"}})";
    Result never = Hcasim("run " + Write("when_never.jsonl", lines));
    EXPECT_EQ(never.rc, 1) << never.out;
    EXPECT_TRUE(Contains(never.out, "when: wr_id 6 on qa was never posted")) << never.out;
    lines.back() = R"({"op":"host_fill","buf":"ref","offset":8000,"length":400,"fill":"zero"})";
    Result out = Hcasim("run " + Write("fill_out.jsonl", lines));
    EXPECT_EQ(out.rc, 2) << out.out;
    EXPECT_TRUE(Contains(out.out, "[8000, +400) is outside buffer \"ref\" (8192 bytes)")) << out.out;
}

TEST(Scenario, DeviceOptionsOutOfRangeAreExit2)
{
    // max_indirection beyond what the KLM walk is built for is the file's error, with its line.
    std::string f = Write("indirect.jsonl", {R"({"op":"device","max_indirection":5})", R"({"op":"run","cycles":1})"});
    Result r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":1: op device: field \"max_indirection\": 5 is out of range 1..4")) << r.out;
}

// --peer-stats DIR: the seed's sysfs tree, one file per counter and a version;
// --json carries the same counters.
TEST(Scenario, PeerStatsAreWrittenAsTheSysfsTreeAndInJson)
{
    const std::string dir = std::string(SCN_TMP) + "/peer-stats", json = std::string(SCN_TMP) + "/peer-stats.json";
    mkdir(SCN_TMP, 0777);
    std::string f = std::string(SCN_VECTORS) + "/directed/peer_write_read_seams.jsonl";
    Result r = Hcasim("run " + f + " --peer-stats " + dir + " --json " + json);
    ASSERT_EQ(r.rc, 0) << r.out;
    const std::string base = dir + "/memory_peers/gpu0/";
    const std::vector<std::pair<std::string, std::string>> want = {
        {"version", "1.0"},           {"num_alloc_mrs", "1"},   {"num_dealloc_mrs", "1"},
        {"num_reg_pages", "3"},       {"num_dereg_pages", "3"}, {"num_reg_bytes", "196608"},
        {"num_dereg_bytes", "196608"}, {"num_free_callbacks", "0"}};
    for (const auto &w : want) {
        std::ifstream in(base + w.first);
        ASSERT_TRUE(in.good()) << "no file " << base + w.first;
        std::string got;
        std::getline(in, got);
        EXPECT_EQ(w.second, got) << base + w.first;
    }
    std::ifstream js(json);
    std::string text((std::istreambuf_iterator<char>(js)), std::istreambuf_iterator<char>());
    EXPECT_TRUE(Contains(text, "\"peer_stats\":{\"gpu0\":{\"num_alloc_mrs\":1,\"num_dealloc_mrs\":1,\"num_reg_pages\":3"))
        << text;
}

// Two connected QPs in one PD, a source and a destination MR (for the tests below).
const std::vector<std::string> kTwoQps = {
    R"({"op":"alloc_pd","pd":"pd0"})",
    R"({"op":"create_cq","cq":"cqa","depth":64})",
    R"({"op":"create_cq","cq":"cqb","depth":64})",
    R"({"op":"create_qp","qp":"qa","pd":"pd0","send_cq":"cqa","recv_cq":"cqa"})",
    R"({"op":"create_qp","qp":"qb","pd":"pd0","send_cq":"cqb","recv_cq":"cqb"})",
    R"({"op":"connect","qp":"qa","remote":"qb"})",
    R"({"op":"host_alloc","buf":"src","size":4096,"fill":"random"})",
    R"({"op":"host_alloc","buf":"dst","size":4096})",
    R"({"op":"reg_mr","mr":"ms","pd":"pd0","buf":"src","access":[]})",
    R"({"op":"reg_mr","mr":"md","pd":"pd0","buf":"dst","access":["LOCAL_WRITE","REMOTE_WRITE"]})",
}; // 10 lines

std::vector<std::string> With(std::vector<std::string> a, const std::vector<std::string> &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(Scenario, RemoteByBufferBusAddress)
{
    // "remote":{"buf":B,"offset":O} is B's bus address + O (for keys without
    // translation); it names no key, so "rkey" is required.
    std::string f = Write("remote_buf.jsonl", With(kTwoQps, {
        R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"RDMA_WRITE","sge":[{"mr":"ms","offset":0,"length":256}],"remote":{"buf":"dst","offset":64},"rkey":{"mr":"md"}})",
        R"({"op":"poll_cq","cq":"cqa","expect":[{"wr_id":1,"status":"SUCCESS"}]})",
        R"({"op":"check_mem","buf":"dst","offset":64,"length":256,"same_as":{"buf":"src","offset":0}})",
        R"({"op":"check_mem","buf":"dst","offset":60,"hex":"00000000"})",
    }));
    Result r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 0) << r.out;
    f = Write("remote_buf_nokey.jsonl", With(kTwoQps, {
        R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"RDMA_WRITE","sge":[],"remote":{"buf":"dst"}})"}));
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":11: op post_send: field \"rkey\": missing")) << r.out;
    f = Write("remote_buf_both.jsonl", With(kTwoQps, {
        R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"RDMA_READ","sge":[],"remote":{"buf":"dst","mr":"md"},"rkey":1})"}));
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":11: op post_send: \"remote\" names exactly one of \"mr\"")) << r.out;
    f = Write("remote_buf_unbound.jsonl", With(kTwoQps, {
        R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"RDMA_READ","sge":[],"remote":{"buf":"nope"},"rkey":1})"}));
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":11: op post_send: field \"remote.buf\": \"nope\" is not bound")) << r.out;
}

TEST(Scenario, ReadWithInvDefaultKeyNeedsSge0)
{
    // RDMA_READ_WITH_INV's invalidate defaults to sge[0]'s key: with no SGE it must be named.
    std::string f = Write("rinv_nosge.jsonl", With(kTwoQps, {
        R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"RDMA_READ_WITH_INV","sge":[],"remote":{"mr":"md"}})"}));
    Result r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":11: op post_send: field \"invalidate\": missing (with no sge")) << r.out;
    EXPECT_FALSE(Contains(r.out, "cycles, engine")) << "refused before anything runs: " << r.out;
    f = Write("rinv_ok.jsonl", With(kTwoQps, {
        R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"RDMA_READ_WITH_INV","sge":[],"remote":{"mr":"md"},"invalidate":{"mr":"md"}})",
        R"({"op":"post_send","qp":"qa","wr_id":2,"opcode":"RDMA_READ_WITH_INV","sge":[{"mr":"md","length":8}],"remote":{"mr":"md"}})"}));
    r = Hcasim("run " + f + " --validate");
    EXPECT_EQ(r.rc, 0) << r.out;
}

TEST(Scenario, FastRegMrCopyOfTheDriver)
{
    // A FAST_REG_MR whose key names another MPT index is refused; the runner's
    // copy of f0 keeps f0's index, so check_mr reads f0 (FREE), not f1 (VALID).
    std::string f = Write("fr_index.jsonl", With(kTwoQps, {
        R"({"op":"alloc_mr","mr":"f0","pd":"pd0","type":"fast_reg","max_page_list_len":1})",
        R"({"op":"alloc_mr","mr":"f1","pd":"pd0","type":"fast_reg","max_page_list_len":1})",
        R"({"op":"alloc_fast_reg_page_list","pl":"p0","len":1})",
        R"({"op":"alloc_fast_reg_page_list","pl":"p1","len":1})",
        R"({"op":"set_page_list","pl":"p0","pages":[{"buf":"dst","offset":0}]})",
        R"({"op":"set_page_list","pl":"p1","pages":[{"buf":"dst","offset":0}]})",
        R"({"op":"post_send","qp":"qb","wr_id":1,"opcode":"FAST_REG_MR","mr":"f1","page_list":"p1","iova":0,"length":4096,"access":["LOCAL_WRITE"],"key":9})",
        R"({"op":"poll_cq","cq":"cqb","expect":[{"wr_id":1,"status":"SUCCESS","opcode":"FAST_REG_MR"}]})",
        R"({"op":"check_mr","mr":"f1","expect":{"state":"VALID","key":9}})",
        R"({"op":"post_send","qp":"qa","wr_id":2,"opcode":"FAST_REG_MR","mr":"f0","page_list":"p0","iova":0,"length":4096,"access":["LOCAL_WRITE"],"key":{"mr":"f1","key":42}})",
        R"({"op":"poll_cq","cq":"cqa","expect":[{"wr_id":2,"status":"MW_BIND_ERR"}]})",
        R"({"op":"check_mr","mr":"f0","expect":{"state":"FREE","key":1}})",
        R"({"op":"check_mr","mr":"f1","expect":{"state":"VALID","key":9}})",
    }));
    Result r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 0) << r.out;
    // A FAST_REG_MR naming a regular MR is refused and leaves the runner's copy
    // of it alone: "remote":{"mr":"m0"} still means m0's own iova.
    f = Write("fr_regular.jsonl", With(kTwoQps, {
        R"({"op":"reg_mr","mr":"m0","pd":"pd0","buf":"dst","iova":"0x7000","access":["LOCAL_WRITE","REMOTE_WRITE"]})",
        R"({"op":"alloc_fast_reg_page_list","pl":"p0","len":1})",
        R"({"op":"set_page_list","pl":"p0","pages":[{"buf":"dst","offset":0}]})",
        R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"FAST_REG_MR","mr":"m0","page_list":"p0","iova":"0x9000","length":4096,"access":["LOCAL_WRITE"]})",
        R"({"op":"poll_cq","cq":"cqa","expect":[{"wr_id":1,"status":"MW_BIND_ERR"}]})",
        R"({"op":"create_qp","qp":"qc","pd":"pd0","send_cq":"cqb","recv_cq":"cqb"})",
        R"({"op":"create_qp","qp":"qd","pd":"pd0","send_cq":"cqb","recv_cq":"cqb"})",
        R"({"op":"connect","qp":"qc","remote":"qd"})",
        R"({"op":"post_send","qp":"qc","wr_id":2,"opcode":"RDMA_WRITE","sge":[{"mr":"ms","length":128}],"remote":{"mr":"m0","offset":16}})",
        R"({"op":"poll_cq","cq":"cqb","expect":[{"wr_id":2,"status":"SUCCESS"}]})",
        R"({"op":"check_mem","buf":"dst","offset":16,"length":128,"same_as":{"buf":"src","offset":0}})",
    }));
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 0) << r.out;
    // A SEND_WITH_INV's receive completion prints its invalidate_rkey; a
    // mismatch names both keys.
    std::vector<std::string> inv = With(kTwoQps, {
        R"({"op":"alloc_mr","mr":"f0","pd":"pd0","type":"fast_reg","max_page_list_len":1})",
        R"({"op":"alloc_fast_reg_page_list","pl":"p0","len":1})",
        R"({"op":"set_page_list","pl":"p0","pages":[{"buf":"dst","offset":0}]})",
        R"({"op":"post_send","qp":"qb","wr_id":1,"opcode":"FAST_REG_MR","mr":"f0","page_list":"p0","iova":0,"length":4096,"access":["LOCAL_WRITE","REMOTE_WRITE"],"key":77})",
        R"({"op":"poll_cq","cq":"cqb","expect":[{"wr_id":1,"status":"SUCCESS"}]})",
        R"({"op":"post_recv","qp":"qb","wr_id":2,"sge":[{"mr":"md","offset":0,"length":64}]})",
        R"({"op":"post_send","qp":"qa","wr_id":3,"opcode":"SEND_WITH_INV","sge":[{"mr":"ms","length":64}],"invalidate":{"mr":"f0"}})",
        R"({"op":"poll_cq","cq":"cqa","expect":[{"wr_id":3,"status":"SUCCESS","opcode":"SEND"}]})",
        R"({"op":"poll_cq","cq":"cqb","expect":[{"wr_id":2,"status":["SUCCESS"],"wc_flags":["WITH_INVALIDATE"],"invalidate_rkey":{"mr":"f0"}}]})",
    });
    f = Write("sinv.jsonl", inv);
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_TRUE(Contains(r.out, "flags WITH_INVALIDATE, invalidate_rkey 0x")) << r.out;
    inv.back() = R"({"op":"poll_cq","cq":"cqb","expect":[{"wr_id":2,"invalidate_rkey":{"mr":"f0","key":78}}]})";
    f = Write("sinv_mismatch.jsonl", inv);
    r = Hcasim("run " + f);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(Contains(r.out, f + ":19: op poll_cq: completion 1 of 1: expected invalidate_rkey 0x")) << r.out;
}

// Each bad command line is refused with its own message, on a file that exists
// and would pass (so only the option check can make it exit 2), and runs nothing.
TEST(Scenario, UsageErrorsExit2)
{
    Result r = Hcasim("run");
    EXPECT_EQ(r.rc, 2);
    EXPECT_TRUE(Contains(r.out, "usage: hcasim run FILE")) << r.out;
    r = Hcasim("run " SCN_TMP "/no-such-file.jsonl");
    EXPECT_EQ(r.rc, 2);
    EXPECT_TRUE(Contains(r.out, "no-such-file.jsonl: cannot open")) << r.out;
    const std::string f = Write("pass.jsonl", kPassing);
    ASSERT_EQ(Hcasim("run " + f + " --engine model").rc, 0) << "the file itself runs";
    const std::pair<std::string, std::string> cases[] = {
        {"--engine fpga", "hcasim run: --engine fpga: expected rtl, model, both or lockstep\n"},
        {"--seed abc", "hcasim run: --seed abc: expected a number\n"},
        {"--seed -1", "hcasim run: --seed -1: expected a number\n"},
        {"--trace-from 1x", "hcasim run: --trace-from 1x: expected a number\n"},
        {"--trace-to ''", "hcasim run: --trace-to : expected a number\n"},
        {"--trace-when bogus",
         "hcasim run: --trace-when bogus: expected key=K, mpt=I, qp=N|NAME, mr=NAME, line=L or breach, then "
         "@BEFORE[:AFTER]\n"},
        {"--trace-when key=zz", "hcasim run: --trace-when key=zz: 'zz' is not a number\n"},
        {"--trace-when mr=", "hcasim run: --trace-when mr=: '' is not a name (mr=NAME)\n"},
        {"--trace-when breach@x", "hcasim run: --trace-when breach@x: expected @BEFORE[:AFTER] in cycles\n"},
        {"--waves-window 1:y", "hcasim run: --waves-window 1:y: expected BEFORE[:AFTER] in cycles\n"},
        {"--waves-on-fail=", "hcasim run: --waves-on-fail=: expected a directory\n"},
        {"--bogus 1", "hcasim run: unexpected argument '--bogus'\n"},
        {"--json", "hcasim run: unexpected argument '--json' (missing value?)\n"},
        {"other.jsonl", "hcasim run: unexpected argument 'other.jsonl'\n"},
    };
    for (auto &c : cases) {
        r = Hcasim("run " + f + " --engine model " + c.first);
        EXPECT_EQ(r.rc, 2) << c.first << "\n" << r.out;
        EXPECT_EQ(r.out, c.second) << c.first;
    }
}

// The default firmware image is found from the executable, not from the tree
// it was built in: <exe dir>/../firmware/hcafw.elf (a build tree), else
// <exe dir>/../share/hcasim/hcafw.elf (an install prefix). -v and --json say
// which image ran.
std::string RealPath(const std::string &p)
{
    char buf[PATH_MAX];
    return realpath(p.c_str(), buf) ? std::string(buf) : "<" + p + " missing>";
}

std::string FirmwareOfRun(const std::string &hcasim, const std::string &scn, const std::string &json, std::string *out)
{
    std::string cmd = hcasim + " run " + scn + " -v --engine model --json " + json + " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return "<popen>";
    char buf[4096];
    size_t n;
    out->clear();
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        out->append(buf, n);
    if (pclose(p) != 0)
        return "<exit: " + *out + ">";
    JsonFile j(json);
    return j.doc ? Str(j.get("firmware")) : "<no json>";
}

TEST(Scenario, DefaultFirmwareFoundFromTheExecutable)
{
    const std::string built = RealPath(std::string(SCN_TMP) + "/../firmware/hcafw.elf");
    const std::string scn = Write("pass.jsonl", kPassing), json = TempPath("r.json");
    const std::string root = TempPath("tree");
    ASSERT_EQ(0, system(("rm -rf " + root + " && mkdir -p " + root + "/inst/bin " + root + "/inst/share/hcasim " +
                         root + "/build/bin " + root + "/build/firmware " + root + "/bare/bin")
                            .c_str()));
    for (const char *d : {"/inst/bin/", "/build/bin/", "/bare/bin/"})
        ASSERT_EQ(0, system(("cp " HCASIM_BIN " " + root + d + "hcasim").c_str()));
    ASSERT_EQ(0, system(("cp " + built + " " + root + "/inst/share/hcasim/hcafw.elf").c_str()));
    ASSERT_EQ(0, system(("cp " + built + " " + root + "/build/firmware/hcafw.elf").c_str()));
    std::string out;
    // The build tree the test binary came from.
    EXPECT_EQ(FirmwareOfRun(HCASIM_BIN, scn, json, &out), built);
    EXPECT_TRUE(Contains(out, "firmware image: " + built + "\n")) << out;
    // A moved build tree loads its own image, an installed one the prefix's.
    std::string own = RealPath(root + "/build/firmware/hcafw.elf");
    EXPECT_EQ(FirmwareOfRun(root + "/build/bin/hcasim", scn, json, &out), own);
    EXPECT_TRUE(Contains(out, "firmware image: " + own + "\n")) << out;
    own = RealPath(root + "/inst/share/hcasim/hcafw.elf");
    EXPECT_EQ(FirmwareOfRun(root + "/inst/bin/hcasim", scn, json, &out), own);
    // Neither beside it: the image of the tree it was built in.
    EXPECT_EQ(FirmwareOfRun(root + "/bare/bin/hcasim", scn, json, &out), built);
    // --firmware wins, and is named as given.
    std::string given = root + "/build/firmware/hcafw.elf";
    std::string cmd = std::string("run ") + scn + " --engine model --json " + json + " --firmware " + given;
    ASSERT_EQ(Hcasim(cmd).rc, 0);
    JsonFile j(json);
    EXPECT_EQ(Str(j.get("firmware")), given);
}

// A bad --firmware or --trace is a command-line error: said so, with no
// FILE:LINE of the scenario (no op of the file is to blame), exit 2.
TEST(Scenario, BadFirmwareOrTraceIsACommandLineError)
{
    const std::string f = Write("pass.jsonl", kPassing), json = TempPath("r.json");
    const std::string notelf = Write("notelf.txt", {"not an ELF"});
    const std::pair<std::string, std::string> cases[] = {
        {"--firmware /nonexistent/fw.elf",
         "hcasim run: command line: --firmware /nonexistent/fw.elf: No such file or directory\n"},
        {"--firmware " + notelf, "hcasim run: command line: --firmware " + notelf + ": ELF header: not an ELF file"},
        {"--trace /nonexistent/dir/w.fst", "hcasim run: command line: --trace /nonexistent/dir/w.fst: No such file or directory\n"},
        {"--engine model --trace " + TempPath("w.fst"),
         "hcasim run: command line: --trace " + TempPath("w.fst") + ": waves come from the RTL engine only (--engine rtl)\n"},
        {"--trace-when breach", "hcasim run: command line: --trace-when needs --trace OUT.fst (the file its windows go to)\n"},
        {"--trace " + TempPath("w.fst") + " --trace-when qp=nope",
         "hcasim run: command line: --trace-when qp=nope: " + f + " binds no QP of that name\n"},
        {"--trace " + TempPath("w.fst") + " --trace-when line=999",
         "hcasim run: command line: --trace-when line=999: line 999 of " + f + " holds no op\n"},
    };
    for (auto &c : cases) {
        Result r = Hcasim("run " + f + " " + c.first + " --json " + json);
        EXPECT_EQ(r.rc, 2) << c.first << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, c.second)) << c.first << "\n" << r.out;
        EXPECT_FALSE(Contains(r.out, f + ":3:")) << "no FILE:LINE (line 3 starts the device): " << r.out;
        EXPECT_FALSE(Contains(r.out, "op query_device")) << r.out;
        JsonFile j(json);
        ASSERT_NE(j.doc, nullptr) << c.first;
        EXPECT_EQ(Str(j.get("result")), "error");
        uint64_t line = 9;
        EXPECT_EQ(json_as_u64(json_get(j.get("failure"), "line"), &line), 0);
        EXPECT_EQ(line, 0u) << c.first;
    }
}

// --help and -h print usage to stdout and exit 0, for hcasim and each command.
TEST(Scenario, HelpPrintsUsageToStdout)
{
    for (const char *args : {"--help", "-h", "help"}) {
        Result r = Hcasim(args, false);
        EXPECT_EQ(r.rc, 0) << args << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, "usage: hcasim COMMAND [OPTIONS]")) << args << "\n" << r.out;
    }
    for (const char *args : {"run --help", "run -h", "run x.jsonl --help", "run --engine model -h"}) {
        Result r = Hcasim(args, false);
        EXPECT_EQ(r.rc, 0) << args << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, "usage: hcasim run FILE [--engine rtl|model|both|lockstep]")) << args << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, "--fw-profile OUT")) << "the run options are listed: " << r.out;
        EXPECT_FALSE(Contains(r.out, "cycles, engine")) << "nothing runs: " << r.out;
    }
    for (const char *args : {"demo --help", "xlate-demo -h"}) {
        Result r = Hcasim(args, false);
        EXPECT_EQ(r.rc, 0) << args << "\n" << r.out;
        EXPECT_TRUE(Contains(r.out, "usage: hcasim COMMAND [OPTIONS]")) << args << "\n" << r.out;
    }
    // Without a command, usage is an error: to stderr, exit 2.
    Result r = Hcasim("", false);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.out, "");
}

TEST(Scenario, LibraryApi)
{
    std::string text;
    for (auto &l : kPassing)
        text += l + "\n";
    scn_t *s = nullptr;
    char err[512];
    ASSERT_EQ(scn_load_text("mem.jsonl", text.data(), text.size(), &s, err, sizeof err), SCN_PASS) << err;
    EXPECT_EQ(scn_op_count(s), 9u);
    char *obuf = nullptr, *ebuf = nullptr;
    size_t olen = 0, elen = 0;
    FILE *o = open_memstream(&obuf, &olen), *e = open_memstream(&ebuf, &elen);
    scn_run_opts_t opts{};
    opts.engine = SCN_ENGINE_MODEL;
    opts.out = o;
    opts.err = e;
    EXPECT_EQ(scn_run(s, &opts), SCN_PASS);
    // The same loaded scenario runs again, identically.
    EXPECT_EQ(scn_run(s, &opts), SCN_PASS);
    fclose(o);
    fclose(e);
    EXPECT_TRUE(Contains(obuf, "PASS mem.jsonl: 9 ops")) << obuf;
    EXPECT_EQ(elen, 0u) << ebuf;
    free(obuf);
    free(ebuf);
    scn_free(s);
    // CRLF line ends and trailing blanks are fine; a bad line names its number.
    std::string crlf = "{\"op\":\"run\",\"cycles\":1}\r\n\r\n   # c\r\n{\"op\":\"run\",\"cycles\":x}\r\n";
    EXPECT_EQ(scn_load_text("crlf.jsonl", crlf.data(), crlf.size(), &s, err, sizeof err), SCN_ERROR);
    EXPECT_TRUE(Contains(err, "crlf.jsonl:4: not JSON: column 22")) << err;
}

// The field checks the runner's schema (sim/runner/scn_schema.c) drives:
// unknown fields of nested objects, fields of another variant (post_send per
// opcode, alloc_mr per type), required fields per form, and the order in which
// a line's errors are found (the first field the op reads wins).
TEST(Scenario, SchemaDrivenFieldChecks)
{
    const std::string prefix = R"({"op":"alloc_pd","pd":"pd0"}
{"op":"create_cq","cq":"cq0"}
{"op":"create_qp","qp":"qa","pd":"pd0","send_cq":"cq0","recv_cq":"cq0"}
{"op":"host_alloc","buf":"b0","size":4096}
{"op":"reg_mr","mr":"m0","pd":"pd0","buf":"b0"}
)";
    const std::pair<const char *, const char *> cases[] = {
        {R"({"op":"poll_cq","cq":"cq0","expect":[{"wr_idd":1}]})",
         R"(op poll_cq: field "expect[0].wr_idd": unknown field (did you mean "wr_id"?))"},
        {R"({"op":"alloc_mr","mr":"f0","pd":"pd0","type":"indirect","max_page_list_len":4})",
         R"(op alloc_mr: field "max_page_list_len": does not apply to type indirect)"},
        {R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"LOCAL_INV","sge":[]})",
         R"(op post_send: field "sge": does not apply to opcode LOCAL_INV (it takes: invalidate))"},
        {R"({"op":"post_send","qp":"qa","wr_id":1,"opcode":"SEND_WITH_INV"})",
         R"(op post_send: field "invalidate": missing (a key reference))"},
        {R"({"op":"post_recv","qp":"qa","wr_id":1,"sge":[{"addr":4096,"lkey":{"mr":"m0"}}]})",
         R"(op post_recv: field "sge[0].length": missing (an SGE by address has a length))"},
        {R"({"op":"create_qp","qp":"qb","pd":"pd0","recv_cq":"cq0"})",
         R"(op create_qp: field "send_cq": missing (a cq name))"},
        {R"({"op":"check_mem","buf":"b0","same_as":{"buf":"b0"}})",
         R"(op check_mem: field "length": missing (an integer))"},
        {R"({"op":"reg_mr","mr":"m0","pd":"pd0"})", R"(op reg_mr: field "mr": "m0" is already bound (a mr, line 5))"},
        // QP, CQ and PD lifecycle ops
        {R"({"op":"modify_qp","qp":"qa","state":"RTS"})",
         R"(op modify_qp: field "state": a QP is moved to RESET or ERROR (RTS is connect's))"},
        {R"({"op":"modify_qp","qp":"qa"})", R"(op modify_qp: field "state": missing)"},
        {R"({"op":"modify_qp","qp":"qa","state":"RESTE"})",
         R"(op modify_qp: field "state": "RESTE" is not one of RESET, RTS, ERROR)"},
        {R"({"op":"destroy_qp","qp":"cq0"})", R"(op destroy_qp: field "qp": "cq0" is a cq (line 2), expected a qp)"},
        {R"({"op":"destroy_cq","cq":"cq0","expect_error":"EBUZY"})",
         R"(op destroy_cq: field "expect_error": "EBUZY" is not one of OK, EINVAL, ENOMEM, EBUSY, ENOENT, EFAULT, )"
         R"(EOPNOTSUPP, EIO, ETIMEDOUT, ENOTCONN, ENOSPC, EPERM, EAGAIN, EEXIST, ERANGE, ENOSYS)"},
        {R"({"op":"dealloc_pd","pd":"pd9"})", R"(op dealloc_pd: field "pd": "pd9" is not bound by any earlier line)"},
        {R"({"op":"destroy_qp","qp":"qa","force":true})",
         R"(op destroy_qp: field "force": unknown field)"},
    };
    for (auto &c : cases) {
        std::string text = prefix + c.first + "\n";
        scn_t *s = nullptr;
        char err[1024];
        EXPECT_EQ(scn_load_text("t.jsonl", text.data(), text.size(), &s, err, sizeof err), SCN_ERROR) << c.first;
        EXPECT_EQ(std::string(err), std::string("t.jsonl:6: ") + c.second) << c.first;
    }
}

// Error text: a number is echoed as the user wrote it (decimal stays
// decimal, a string stays the string), and a type takes its article.
TEST(Scenario, ErrorTextEchoesInputAsWritten)
{
    const std::pair<const char *, const char *> cases[] = {
        {R"({"op":"create_cq","cq":"c","depth":99999999999})",
         R"(op create_cq: field "depth": 99999999999 is out of range 1..4096)"},
        {R"({"op":"create_cq","cq":"c","depth":"99999999999"})",
         R"(op create_cq: field "depth": "99999999999" is out of range 1..4096)"},
        {R"({"op":"create_cq","cq":"c","depth":"0x174876E7FF"})",
         R"(op create_cq: field "depth": "0x174876E7FF" is out of range 1..4096)"},
        {R"({"op":"create_cq","cq":"c","depth":{}})",
         R"(op create_cq: field "depth": expected an integer, got an object)"},
        {R"({"op":"create_cq","cq":"c","depth":[1]})",
         R"(op create_cq: field "depth": expected an integer, got an array)"},
        {R"({"op":"create_cq","cq":"c","depth":null})",
         R"(op create_cq: field "depth": expected an integer, got null)"},
        {R"({"op":"create_cq","cq":"c","depth":"x"} )", R"(op create_cq: field "depth": "x" is not an integer (decimal or "0x" hex))"},
        {R"({"op":"create_qp","qp":"q","pd":7,"send_cq":"c","recv_cq":"c"})",
         R"(op create_qp: field "pd": expected a name (a string), got an integer)"},
        {R"([1])", R"(expected one JSON object per line, got an array)"},
        {R"({"op":{}})", R"(field "op": expected a string, got an object)"},
    };
    for (auto &c : cases) {
        std::string text = std::string(c.first) + "\n";
        scn_t *s = nullptr;
        char err[1024];
        EXPECT_EQ(scn_load_text("t.jsonl", text.data(), text.size(), &s, err, sizeof err), SCN_ERROR) << c.first;
        EXPECT_EQ(std::string(err), std::string("t.jsonl:1: ") + c.second) << c.first;
    }
}

} // namespace

// --fw-profile: the firmware's busy cycles per function, from the image's own
// symbol table. A FAST_REG_MR scenario must show the boot (_start), the event
// service and the mailbox; the counts are sorted and add up to the header's.
TEST(Scenario, FirmwareProfileNamesWhereTheCyclesWent)
{
    const std::string out = TempPath("fw_profile.txt");
    std::remove(out.c_str());
    Result r = Hcasim(std::string("run ") + SCN_VECTORS + "/directed/mm_fast_reg_success.jsonl --fw-profile " + out);
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_TRUE(Contains(r.out, "firmware profile: " + out)) << r.out;
    FILE *f = fopen(out.c_str(), "r");
    ASSERT_NE(f, nullptr) << out;
    char line[256];
    unsigned long long total = 0, sum = 0, prev = ~0ull;
    ASSERT_NE(fgets(line, sizeof line, f), nullptr);
    ASSERT_EQ(1, sscanf(strstr(line, "), ") ? strstr(line, "), ") + 3 : "", "%llu", &total)) << line;
    std::map<std::string, unsigned long long> per;
    while (fgets(line, sizeof line, f)) {
        unsigned long long n = 0;
        double pct = 0;
        char name[128] = "";
        ASSERT_EQ(3, sscanf(line, "%llu %lf%% %127[^\n]", &n, &pct, name)) << line;
        EXPECT_LE(n, prev) << "sorted, most first: " << line;
        prev = n;
        sum += n;
        per[name] = n;
    }
    fclose(f);
    EXPECT_EQ(total, sum) << "the functions' cycles add up to the cycles sampled";
    EXPECT_GT(per["_start"], 100000u) << "the boot zeroes the firmware's bookkeeping";
    EXPECT_GT(per["mm_service"], 0u) << "FAST_REG_MR and LOCAL_INV are served there";
    EXPECT_GT(per["cmd_dispatch"], 0u) << "the mailbox";
    Result bad = Hcasim(std::string("run ") + SCN_VECTORS + "/directed/query_device.jsonl --fw-profile /nonexistent/dir/p.txt");
    EXPECT_EQ(2, bad.rc) << "an unwritable profile path is refused before the run: " << bad.out;
    EXPECT_TRUE(Contains(bad.out, "--fw-profile /nonexistent/dir/p.txt: No such file or directory")) << bad.out;
}
