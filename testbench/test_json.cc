// test_json.cc — sim/json.{h,c}: grammar, exact 64-bit integers, strings and
// escapes, duplicate keys, depth limit, errors with their column, and a fuzz
// over random bytes, mutations and truncations that must never crash.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>

#include "json.h"

namespace {

struct Doc {
    json_doc_t *doc = nullptr;
    json_error_t err{};
    int rc = 0;
    explicit Doc(const std::string &s, unsigned depth = 0) { rc = json_parse(s.data(), s.size(), depth, &doc, &err); }
    ~Doc() { json_free(doc); }
    const json_value_t *root() const { return json_root(doc); }
};

// Parse must fail at this 1-based column with a message containing `what`.
void ExpectError(const std::string &text, size_t column, const char *what)
{
    Doc d(text);
    ASSERT_EQ(d.rc, -EINVAL) << "input: " << text;
    EXPECT_EQ(d.err.column, column) << "input: " << text << "\nmessage: " << d.err.msg;
    EXPECT_NE(strstr(d.err.msg, what), nullptr) << "input: " << text << "\nmessage: " << d.err.msg;
}

TEST(Json, Scalars)
{
    Doc t("true"), f(" false "), n("\tnull\n");
    ASSERT_EQ(t.rc, 0);
    EXPECT_EQ(t.root()->type, JSON_BOOL);
    EXPECT_EQ(t.root()->u.boolean, 1);
    ASSERT_EQ(f.rc, 0);
    EXPECT_EQ(f.root()->u.boolean, 0);
    ASSERT_EQ(n.rc, 0);
    EXPECT_EQ(n.root()->type, JSON_NULL);
}

TEST(Json, ExactIntegers)
{
    struct {
        const char *text;
        uint64_t mag;
        int neg;
    } cases[] = {
        {"0", 0, 0},
        {"-0", 0, 0},
        {"18446744073709551615", UINT64_MAX, 0},
        {"-9223372036854775808", 1ull << 63, 1},
        {"9007199254740993", 9007199254740993ull, 0}, // 2^53 + 1: a double would round it
        {"4294967296", 1ull << 32, 0},
    };
    for (auto &c : cases) {
        Doc d(c.text);
        ASSERT_EQ(d.rc, 0) << c.text;
        ASSERT_EQ(d.root()->type, JSON_INT) << c.text;
        EXPECT_EQ(d.root()->u.integer.mag, c.mag) << c.text;
        EXPECT_EQ(d.root()->u.integer.neg, c.neg) << c.text;
    }
    uint64_t u;
    int64_t i;
    Doc big("18446744073709551616"); // 2^64: valid JSON, not a 64-bit integer
    ASSERT_EQ(big.rc, 0);
    EXPECT_EQ(big.root()->type, JSON_NUMBER);
    EXPECT_EQ(json_as_u64(big.root(), &u), -ERANGE);
    Doc neg("-9223372036854775809");
    EXPECT_EQ(neg.root()->type, JSON_NUMBER);
    EXPECT_EQ(json_as_i64(neg.root(), &i), -ERANGE);
    Doc frac("1.5"), expo("1e3"), expo2("10E-1");
    EXPECT_EQ(frac.root()->type, JSON_NUMBER);
    EXPECT_EQ(json_as_u64(frac.root(), &u), -EINVAL);
    EXPECT_EQ(json_as_u64(expo.root(), &u), -EINVAL);
    EXPECT_DOUBLE_EQ(expo2.root()->u.number.value, 1.0);
    Doc m("-5");
    EXPECT_EQ(json_as_u64(m.root(), &u), -ERANGE);
    ASSERT_EQ(json_as_i64(m.root(), &i), 0);
    EXPECT_EQ(i, -5);
    Doc mn("-9223372036854775808");
    ASSERT_EQ(json_as_i64(mn.root(), &i), 0);
    EXPECT_EQ(i, INT64_MIN);
    Doc mx("18446744073709551615");
    EXPECT_EQ(json_as_i64(mx.root(), &i), -ERANGE);
    ASSERT_EQ(json_as_u64(mx.root(), &u), 0);
    EXPECT_EQ(u, UINT64_MAX);
    Doc s("\"12\"");
    EXPECT_EQ(json_as_u64(s.root(), &u), -EINVAL);
}

TEST(Json, Strings)
{
    Doc d(R"("a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00")");
    ASSERT_EQ(d.rc, 0) << d.err.msg;
    ASSERT_EQ(d.root()->type, JSON_STRING);
    std::string want = "a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    EXPECT_EQ(std::string(d.root()->u.string.s, d.root()->u.string.len), want);
    Doc nul(R"("x\u0000y")");
    ASSERT_EQ(nul.rc, 0);
    EXPECT_EQ(nul.root()->u.string.len, 3u);
    EXPECT_EQ(std::string(nul.root()->u.string.s, 3), std::string("x\0y", 3));
    Doc utf8("\"\xc3\xa9\xf0\x9f\x98\x80\"");
    ASSERT_EQ(utf8.rc, 0);
    EXPECT_EQ(utf8.root()->u.string.len, 6u);
}

TEST(Json, Containers)
{
    Doc d(R"( {"op":"reg_mr","a":[1,[2,{"b":null}],[]],"o":{}} )");
    ASSERT_EQ(d.rc, 0) << d.err.msg;
    const json_value_t *r = d.root();
    ASSERT_EQ(r->type, JSON_OBJECT);
    ASSERT_EQ(r->u.object.n, 3u);
    EXPECT_STREQ(r->u.object.members[0].key, "op");
    EXPECT_EQ(r->u.object.members[0].key_pos, 2u);
    const json_value_t *a = json_get(r, "a");
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->type, JSON_ARRAY);
    ASSERT_EQ(a->u.array.n, 3u);
    EXPECT_EQ(a->u.array.items[0]->u.integer.mag, 1u);
    EXPECT_EQ(a->u.array.items[0]->pos, 21u);
    EXPECT_EQ(a->u.array.items[1]->u.array.n, 2u);
    EXPECT_EQ(json_get(a->u.array.items[1]->u.array.items[1], "b")->type, JSON_NULL);
    EXPECT_EQ(a->u.array.items[2]->u.array.n, 0u);
    EXPECT_EQ(json_get(r, "o")->u.object.n, 0u);
    EXPECT_EQ(json_get(r, "missing"), nullptr);
    EXPECT_EQ(json_get(a, "a"), nullptr);
}

TEST(Json, ErrorsNameTheColumnAndReason)
{
    ExpectError("", 1, "unexpected end of input");
    ExpectError("   ", 4, "unexpected end of input");
    ExpectError("{\"op\" \"x\"}", 7, "expected ':'");
    ExpectError("{\"a\":1,}", 8, "expected a string key");
    ExpectError("{\"a\":1 \"b\":2}", 8, "expected ',' or '}'");
    ExpectError("[1,2", 5, "expected ',' or ']'");
    ExpectError("[1,]", 4, "unexpected ']'");
    ExpectError("{a:1}", 2, "expected a string key");
    ExpectError("01", 1, "leading zero");
    ExpectError("-", 2, "expected a digit after '-'");
    ExpectError("1.", 3, "expected a digit after '.'");
    ExpectError("1e+", 4, "exponent");
    ExpectError("+1", 1, "unexpected '+'");
    ExpectError("tru", 1, "invalid literal");
    ExpectError("nulls", 5, "after the value");
    ExpectError("{} {}", 4, "after the value");
    ExpectError("\"abc", 1, "unterminated string");
    ExpectError("\"a\tb\"", 3, "control character 0x09");
    ExpectError("\"\\x\"", 2, "bad escape");
    ExpectError("\"\\u12g4\"", 6, "not a hex digit");
    ExpectError("\"\\u12\"", 4, "truncated");
    ExpectError("\"\\ud800\"", 2, "high surrogate");
    ExpectError("\"\\ud800\\u0041\"", 2, "not a low surrogate");
    ExpectError("\"\\udc00\"", 2, "lone low surrogate");
    ExpectError("\"\xc3\"", 2, "invalid UTF-8");
    ExpectError("\"\xc0\x80\"", 2, "invalid UTF-8"); // overlong
    ExpectError("\"\xed\xa0\x80\"", 2, "invalid UTF-8"); // encoded surrogate
    ExpectError("{\"a\":1,\"b\":2,\"a\":3}", 14, "duplicate key \"a\"");
    ExpectError("[\x01]", 2, "byte 0x01");
    ExpectError("[1]\n  x", 3, "after the value");
    Doc lines("[1,\n2,\n  ?]");
    EXPECT_EQ(lines.err.line, 3u);
    EXPECT_EQ(lines.err.column, 3u);
}

TEST(Json, DuplicateKeysInLargeObjects)
{
    std::string s = "{";
    for (int i = 0; i < 200; i++)
        s += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    std::string ok = s + "\"end\":0}";
    Doc d(ok);
    ASSERT_EQ(d.rc, 0) << d.err.msg;
    EXPECT_EQ(d.root()->u.object.n, 201u);
    // Two repeats: the one reported is the first repeat in text order.
    std::string bad = s + "\"k7\":1,\"k3\":2}";
    Doc b(bad);
    ASSERT_EQ(b.rc, -EINVAL);
    EXPECT_NE(strstr(b.err.msg, "duplicate key \"k7\""), nullptr) << b.err.msg;
    EXPECT_EQ(b.err.offset, s.size());
}

TEST(Json, DepthLimit)
{
    std::string deep64(64, '['), deep65(65, '[');
    deep64 += std::string(64, ']');
    deep65 += std::string(65, ']');
    Doc ok(deep64), bad(deep65);
    EXPECT_EQ(ok.rc, 0) << ok.err.msg;
    ASSERT_EQ(bad.rc, -EINVAL);
    EXPECT_NE(strstr(bad.err.msg, "nesting deeper than 64"), nullptr);
    EXPECT_EQ(bad.err.column, 65u);
    Doc custom("{\"a\":{\"b\":[1]}}", 2);
    EXPECT_EQ(custom.rc, -EINVAL);
    // A million brackets: refused at the limit, no stack overflow.
    std::string huge(1000000, '[');
    Doc h(huge);
    EXPECT_EQ(h.rc, -EINVAL);
}

TEST(Json, NotNulTerminated)
{
    const char text[] = {'[', '1', ']', 'x'};
    json_doc_t *doc = nullptr;
    json_error_t err;
    ASSERT_EQ(json_parse(text, 3, 0, &doc, &err), 0);
    json_free(doc);
    EXPECT_EQ(json_parse(nullptr, 0, 0, &doc, &err), -EINVAL);
    EXPECT_EQ(doc, nullptr);
}

TEST(Json, WriteStringRoundTrips)
{
    std::string s("q\"b\\n\n\x01\xc3\xa9", 9);
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_write_string(f, s.data(), s.size());
    fclose(f);
    Doc d(std::string(buf, len));
    free(buf);
    ASSERT_EQ(d.rc, 0) << d.err.msg;
    EXPECT_EQ(std::string(d.root()->u.string.s, d.root()->u.string.len), s);
}

// Walk a parsed value completely (catches dangling pointers under sanitizers).
size_t Walk(const json_value_t *v)
{
    size_t n = 1;
    if (v->type == JSON_ARRAY)
        for (size_t i = 0; i < v->u.array.n; i++)
            n += Walk(v->u.array.items[i]);
    if (v->type == JSON_OBJECT)
        for (size_t i = 0; i < v->u.object.n; i++)
            n += strlen(v->u.object.members[i].key) + Walk(v->u.object.members[i].value);
    if (v->type == JSON_STRING)
        n += v->u.string.len;
    return n;
}

TEST(Json, FuzzNeverCrashes)
{
    std::mt19937_64 rng(12345);
    const std::string seeds[] = {
        R"({"op":"post_send","qp":"qa","wr_id":"0xffffffffffffffff","sge":[{"mr":"m0","offset":0,"length":4096}]})",
        R"([1,-2,3.5e-7,"\u00e9\ud83d\ude00",true,false,null,{"a":[[],{}]}])",
        R"({"op":"poll_cq","cq":"cq0","expect":[{"wr_id":1,"status":["SUCCESS","WR_FLUSH_ERR"]}]})",
    };
    const char alphabet[] = "{}[]\":,\\u0123456789abcdefABCDEF-+.eE tfnrl\x01\x7f\xc3\xa9\xed\xf0";
    size_t parsed = 0, refused = 0;
    for (int iter = 0; iter < 100000; iter++) {
        std::string s;
        int mode = iter % 4;
        if (mode == 0) { // random bytes
            size_t n = rng() % 64;
            for (size_t i = 0; i < n; i++)
                s.push_back((char)(rng() & 0xff));
        } else if (mode == 1) { // random tokens from the grammar's alphabet
            size_t n = rng() % 96;
            for (size_t i = 0; i < n; i++)
                s.push_back(alphabet[rng() % (sizeof alphabet - 1)]);
        } else { // mutate or truncate a valid document
            s = seeds[rng() % 3];
            if (mode == 2) {
                for (int k = 0, m = 1 + (int)(rng() % 4); k < m; k++) {
                    size_t at = rng() % s.size();
                    switch (rng() % 3) {
                    case 0: s[at] = (char)(rng() & 0xff); break;
                    case 1: s.erase(at, 1); break;
                    default: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
                    }
                    if (s.empty())
                        break;
                }
            } else
                s.resize(rng() % s.size());
        }
        json_doc_t *doc = nullptr;
        json_error_t err;
        int rc = json_parse(s.data(), s.size(), 16, &doc, &err);
        if (rc == 0) {
            parsed++;
            EXPECT_GT(Walk(json_root(doc)), 0u);
        } else {
            refused++;
            ASSERT_EQ(rc, -EINVAL);
            ASSERT_LE(err.offset, s.size());
            ASSERT_GE(err.column, 1u);
            ASSERT_NE(err.msg[0], 0);
            ASSERT_EQ(doc, nullptr);
        }
        json_free(doc);
    }
    // Every truncation of a valid document but the whole one is refused.
    for (auto &seed : seeds)
        for (size_t n = 0; n < seed.size(); n++) {
            json_doc_t *doc = nullptr;
            json_error_t err;
            EXPECT_EQ(json_parse(seed.data(), n, 0, &doc, &err), -EINVAL) << seed.substr(0, n);
            json_free(doc);
        }
    EXPECT_GT(parsed, 0u);
    EXPECT_GT(refused, 0u);
}

} // namespace
