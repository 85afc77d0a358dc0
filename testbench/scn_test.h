// scn_test.h — what test_scenario.cc and test_scn_both.cc (one binary) share:
// running the built hcasim, reading a file, and its --json result.
#ifndef SCN_TEST_H
#define SCN_TEST_H

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "json.h"

// The build passes these (testbench/scenario.mk); the defaults suit a run from the repo root.
#ifndef HCASIM_BIN
#define HCASIM_BIN "build/bin/hcasim"
#endif
#ifndef SCN_VECTORS
#define SCN_VECTORS "vectors"
#endif
#ifndef SCN_TMP
#define SCN_TMP "build/test-results"
#endif

namespace scn_test {

struct Result {
    int rc = -1;
    std::string out; // stdout and stderr together, or stdout alone
};

// hcasim ARGS: its exit status and stdout with stderr, or stdout alone (stderr dropped).
inline Result Hcasim(const std::string &args, bool with_stderr = true)
{
    Result r;
    std::string cmd = std::string(HCASIM_BIN) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        r.out.append(buf, n);
    int st = pclose(p);
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

inline std::string Slurp(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline bool Contains(const std::string &hay, const std::string &needle)
{
    return hay.find(needle) != std::string::npos;
}

// A JSON file (a --json result), parsed; a parse error fails the test.
struct JsonFile {
    json_doc_t *doc = nullptr;
    explicit JsonFile(const std::string &path)
    {
        std::string text = Slurp(path);
        json_error_t err;
        EXPECT_EQ(json_parse(text.data(), text.size(), 0, &doc, &err), 0) << path << ": " << err.msg << "\n" << text;
    }
    ~JsonFile() { json_free(doc); }
    JsonFile(const JsonFile &) = delete;
    JsonFile &operator=(const JsonFile &) = delete;
    const json_value_t *get(const char *k) const { return json_get(json_root(doc), k); }
};

inline std::string Str(const json_value_t *v)
{
    return v && v->type == JSON_STRING ? std::string(v->u.string.s, v->u.string.len) : "<not a string>";
}

} // namespace scn_test

#endif // SCN_TEST_H
