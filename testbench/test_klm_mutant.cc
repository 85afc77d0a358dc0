// test_klm_mutant.cc — the KLM scenarios can fail: linked with a model whose
// KLM walker skips rules 2-5 on its entries (model/xu_model.c built with
// HCA_MUTANT_KLM_NO_ENTRY_CHECK, in place of the real one), the scenarios that
// depend on entry checks must fail on the model engine, and say so at the
// line where an access that must fail went through. (The same files pass on
// both real engines in `make scenarios`.)
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "scenario.h"

#ifndef SCN_VECTORS
#define SCN_VECTORS "vectors"
#endif

namespace {

struct Case {
    const char *file;
    const char *what; // what the entry check protects there
};

class KlmMutant : public ::testing::TestWithParam<Case> {};

TEST_P(KlmMutant, TheScenarioCatchesAWalkerThatSkipsTheEntryCheck)
{
    const std::string path = std::string(SCN_VECTORS) + "/directed/" + GetParam().file;
    scn_t *s = nullptr;
    char err[512] = "";
    ASSERT_EQ(SCN_PASS, scn_load(path.c_str(), &s, err, sizeof err)) << err;
    scn_run_opts_t o{};
    o.engine = SCN_ENGINE_MODEL;
    char *out = nullptr, *why = nullptr;
    size_t outn = 0, whyn = 0;
    o.out = open_memstream(&out, &outn);
    o.err = open_memstream(&why, &whyn);
    const int rc = scn_run(s, &o);
    fclose(o.out);
    fclose(o.err);
    EXPECT_EQ(SCN_FAIL, rc) << GetParam().file << " passes with a walker that skips the entry check ("
                            << GetParam().what << "):\n" << why;
    EXPECT_NE(std::string::npos, std::string(why).find(path + ":")) << "the failure names no line:\n" << why;
    printf("  %s: %s", GetParam().file, why); // where the mutant was caught
    free(out);
    free(why);
    scn_free(s);
}

INSTANTIATE_TEST_SUITE_P(
    Files, KlmMutant,
    ::testing::Values(Case{"klm_invalidate_through.jsonl", "an invalidated entry MR"},
                      Case{"klm_nesting_kinds_rights.jsonl", "an entry MR without LOCAL_WRITE"},
                      Case{"klm_race_entry_write_x12.jsonl", "the entry MR invalidated mid-WRITE"},
                      Case{"klm_race_entry_read_x12.jsonl", "the entry MR invalidated mid-READ"}),
    [](const ::testing::TestParamInfo<Case> &i) {
        std::string n = i.param.file;
        n = n.substr(0, n.find('.'));
        for (auto &c : n)
            if (c == '-')
                c = '_';
        return n;
    });

} // namespace
