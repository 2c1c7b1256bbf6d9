/* The rules-file parser of nvscale check (src/check/rules.c): what each line means, and that every kind of mistake is
 * rejected with a message naming it (file-level line numbers: tests/t/check_rules_errors.sh). */
#include "check/rules.h"

#include <stdint.h>

#include "core/dtype.h"
#include "core/units.h"
#include "t.h"

static nvs_rule parse_ok(const char *line)
{
    nvs_rule r;
    char err[256] = "";
    if (nvs_rule_parse_line(line, &r, err, sizeof err)) T_FAIL("'%s' rejected: %s", line, err);
    return r;
}

static void t_busbw_exact(void)
{
    nvs_rule r = parse_ok("busbw allreduce size=1G n=2 min=300   # GB/s");
    T_EQ_I(r.metric, NVS_RULE_BUSBW);
    T_EQ_S(r.coll, "all_reduce"); /* the registry's spelling, whatever alias was typed */
    T_EQ_U(r.size_lo, 1073741824u);
    T_EQ_U(r.size_hi, 1073741824u);
    T_EQ_I(r.size_exact, 1);
    T_EQ_I(r.n, 2);
    T_EQ_I(r.has_min, 1);
    T_NEAR(r.min, 300, 0);
    T_EQ_I(r.has_below, 0);
    T_EQ_I(r.type, -1);
    T_EQ_I(r.inplace, -1);
    T_EQ_S(r.text, "busbw allreduce size=1G n=2 min=300"); /* comment and extra blanks gone */
}

static void t_busbw_range_and_selectors(void)
{
    nvs_rule r = parse_ok("busbw * size>=1M size<=64M n=* type=half op=max inplace=1 below_baseline<=5%");
    T_EQ_S(r.coll, "");
    T_EQ_U(r.size_lo, 1048576u);
    T_EQ_U(r.size_hi, 67108864u);
    T_EQ_I(r.size_exact, 0);
    T_EQ_I(r.n, NVS_RULE_N_ALL);
    T_EQ_I(r.type, NVS_HALF);
    T_EQ_I(r.op, NVS_MAX);
    T_EQ_I(r.inplace, 1);
    T_EQ_I(r.has_below, 1);
    T_NEAR(r.below_pct, 5, 0);
    r = parse_ok("busbw broadcast size>=256M n=max min=340 below_baseline<=2.5");
    T_EQ_U(r.size_hi, SIZE_MAX);
    T_EQ_I(r.n, NVS_RULE_N_MAX);
    T_EQ_I(r.has_min, 1);
    T_NEAR(r.below_pct, 2.5, 0);
    /* a decimal size that comes to whole bytes is the size `-b 1.5M` sweeps (core/units.h nvs_parse_size_whole), as
     * nccl-tests' parsesize reads it (was "size: '1.5M' is not a size") */
    r = parse_ok("busbw all_reduce size=1.5M n=2 min=1");
    T_EQ_U(r.size_lo, 1572864u);
    T_EQ_U(r.size_hi, 1572864u);
    r = parse_ok("busbw all_reduce size>=0.5G size<=1e6K n=2 min=1");
    T_EQ_U(r.size_lo, 536870912u);
    T_EQ_U(r.size_hi, 1024000000u);
}

static void t_p2p_and_efficiency(void)
{
    nvs_rule r = parse_ok("p2p uni min=350");
    T_EQ_I(r.metric, NVS_RULE_P2P);
    T_EQ_I(r.bidir, 0);
    T_EQ_I(r.src, -1);
    r = parse_ok("p2p bidir pair=3,1 min=700");
    T_EQ_I(r.bidir, 1);
    T_EQ_I(r.src, 3);
    T_EQ_I(r.dst, 1);
    r = parse_ok("efficiency train n=8 min=90%");
    T_EQ_I(r.metric, NVS_RULE_EFFICIENCY);
    T_NEAR(r.min, 0.9, 1e-12); /* a percent becomes the fraction run.json stores */
    r = parse_ok("efficiency train n=* min=0.85");
    T_NEAR(r.min, 0.85, 1e-12);
    r = parse_ok("efficiency train n=1 min=1");
    T_EQ_I(r.n, 1);
}

/* Each bad line, and a piece of the message it must give. */
static const struct {
    const char *line, *msg;
} bad_lines[] = {
    {"bandwidth all_reduce n=2 min=1", "unknown metric 'bandwidth'"},
    {"busbw", "busbw needs a collective"},
    {"gpus min=8", "gpus needs 'per_host' after it"},
    {"gpus per_host", "missing threshold: give min=... (GPUs per host)"},
    {"gpus per_host min=0", "min: '0' is not a GPU count (a whole number from 1 to 256)"},
    {"gpus per_host min=2.5", "min: '2.5' is not a GPU count"},
    {"gpus per_host min=257", "min: '257' is not a GPU count"},
    {"gpus per_host min_bound=50%", "unknown key 'min_bound' for gpus (expected min, severity)"},
    {"busbw n=2 min=1", "busbw needs a collective"},
    {"busbw allgatherz n=2 min=1", "unknown collective 'allgatherz'"},
    {"busbw all_reduce size=12X n=2 min=1", "size: '12X' is not a size"},
    {"busbw all_reduce size=-1 n=2 min=1", "size: '-1' is not a size"},
    {"busbw all_reduce size=1.3K n=2 min=1", "size: '1.3K': sizes are whole bytes with an optional K/M/G/T suffix "
                                             "(powers of 1024): 1331.2 bytes is no whole number"},
    {"busbw all_reduce size<=0.5 n=2 min=1", "size: '0.5': sizes are whole bytes"},
    /* a zero written as a decimal is the 0 that size=0 is (was "size: '0.0' is not a size") */
    {"busbw all_reduce size=0.0 n=2 min=1", "size: 0 bytes: collectives run at 1 byte or more"},
    {"busbw all_reduce size<=0.0K n=2 min=1", "size: 0 bytes: collectives run at 1 byte or more"},
    {"busbw all_reduce size=-0.0 n=2 min=1", "size: '-0.0' is not a size"},
    {"busbw all_reduce n=2.5 min=1", "n: '2.5' is not a GPU count"},
    {"busbw all_reduce n=-1 min=1", "n: '-1' is not a GPU count"},
    {"busbw all_reduce n=2", "missing threshold"},
    {"busbw all_reduce min=1", "missing n="},
    {"busbw all_reduce n=2 n=2 min=1", "duplicate key 'n='"},
    {"busbw all_reduce size>=1M size>=2M n=2 min=1", "duplicate key 'size>='"},
    {"busbw all_reduce n=2 min=1 min=2", "duplicate key 'min='"},
    {"busbw all_reduce size>=1M size=2M n=2 min=1", "size= cannot be combined"},
    {"busbw all_reduce size<=1M size>=2M n=2 min=1", "range [size>=, size<=] is empty"},
    {"busbw all_reduce n=* below_baseline<=100%", "out of range [0%, 100%)"},
    {"busbw all_reduce n=* below_baseline<=-1", "out of range [0%, 100%)"},
    {"busbw all_reduce n=* below_baseline<=five", "is not a percent"},
    {"busbw all_reduce n=2 min=1 extra", "unexpected 'extra'"},
    {"busbw all_reduce n=2 min=1 =3", "unexpected '=3'"},
    {"busbw all_reduce n=2 min=1 pair=0,1", "unknown key 'pair' for busbw"},
    {"busbw all_reduce n=2 min=1 Size=1M", "unknown key 'Size'"},
    {"busbw all_reduce n>=2 min=1", "n takes =, not >="},
    {"busbw all_reduce n=2 min<=1", "min takes =, not <="},
    {"busbw all_reduce n=2 min=1e7", "out of range (0, 1e6)"},
    {"busbw all_reduce n=2 min=nan", "not a number"},
    {"busbw all_reduce n=2 min=inf", "not a number"},
    {"busbw all_reduce n=2 type=fp8 min=1", "unknown data type 'fp8'"},
    {"busbw all_reduce n=2 op=mean min=1", "unknown reduction 'mean'"},
    {"busbw all_reduce n=2 inplace=2 min=1", "inplace: '2' is not 0"},
    {"busbw all_reduce n=2 min==1", "min: '=1' is not a number"},
    {"busbw all_reduce n=2 min>1", "the comparison must be =, >= or <="},
    {"p2p", "p2p needs uni or bidir"},
    {"p2p min=3", "p2p needs uni or bidir"},
    {"p2p both min=3", "unknown direction 'both'"},
    {"p2p uni n=2 min=3", "unknown key 'n' for p2p"},
    {"p2p uni pair=1 min=3", "pair: '1' is not SRC,DST"},
    {"p2p uni pair=1,x min=3", "pair: '1,x' is not SRC,DST"},
    {"p2p uni pair=2,2 min=3", "names one GPU twice"},
    {"p2p uni min=3%", "not a percent"},
    {"efficiency n=2 min=0.9", "efficiency needs 'train'"},
    {"efficiency train n=2 min=0", "out of range (0, 1]"},
    {"efficiency train n=2 min=0%", "out of range (0%, 100%]"},
    {"efficiency train n=2 min=101%", "out of range (0%, 100%]"},
    {"efficiency train n=2 size=1M min=0.9", "unknown key 'size' for efficiency"},
    {"efficiency train min=0.9", "missing n="},
    {"gpu", "gpu needs membw or gemm"},
    {"gpu min=1", "gpu needs membw or gemm"},
    {"gpu stream min=1", "gpu: unknown test 'stream' (membw or gemm)"},
    {"gpu membw", "missing threshold: give min=... (GB/s), min_bound=...% or min_peer=...%"},
    {"gpu gemm gpu=1", "missing threshold: give min=... (TFLOPS)"},
    {"gpu membw min_peer=0%", "min_peer: 0% out of range (0%, 100%]"},
    {"gpu membw min_peer=101", "min_peer: 101 out of range (0%, 100%]"},
    {"gpu membw min_peer=most", "min_peer: 'most' is not a percent"},
    {"gpu membw min_peer=90% min_peer=80%", "duplicate key 'min_peer='"},
    {"gpu membw min_peer>=90%", "min_peer takes =, not >="},
    {"gpu gemm min=90%", "min: '90%': gpu min is in TFLOPS, not a percent"},
    {"gpu gemm min=fast", "min: 'fast' is not a number (TFLOPS)"},
    {"gpu membw min=0", "min: 0 GB/s out of range (0, 1e6)"},
    {"gpu membw gpu=x min=1", "gpu: 'x' is not a GPU index"},
    {"gpu membw gpu=-1 min=1", "gpu: '-1' is not a GPU index"},
    {"gpu membw n=2 min=1", "unknown key 'n' for gpu (expected min, min_bound, severity, gpu, min_peer)"},
    {"gpu membw mode=all min=1", "unknown key 'mode' for gpu"},
    {"gpu membw min_bound=150%", "min_bound: 150% out of range (0%, 100%]"},
    {"gpu gemm min=1 severity=info", "severity: 'info' is not warn or fail"},
    {"host h2d min_peer=90%", "unknown key 'min_peer' for host"},
    {"p2p uni min_peer=90%", "unknown key 'min_peer' for p2p"},
    {"   # only a comment", "empty rule"},
    {"busbw all_reduce n=2 \x01min=1", "control character 0x01"},
};

/* gpu membw|gemm: the per-GPU self-test (accept --level 2) */
static void t_gpu_rules(void)
{
    nvs_rule r = parse_ok("gpu membw min_peer=90% min_bound=70%");
    T_EQ_I(r.metric, NVS_RULE_GPU);
    T_EQ_I(r.gpu_test, 0);
    T_EQ_I(r.gpu, -1);
    T_EQ_I(r.has_min_peer && r.has_min_bound && !r.has_min, 1);
    T_NEAR(r.min_peer_pct, 90, 1e-12);
    T_NEAR(r.min_bound_pct, 70, 1e-12);
    r = parse_ok("gpu gemm gpu=3 min=600 severity=warn");
    T_EQ_I(r.gpu_test, 1);
    T_EQ_I(r.gpu, 3);
    T_NEAR(r.min, 600, 1e-12);
    T_EQ_I(r.warn_only, 1);
    T_EQ_I(r.has_min_peer || r.has_min_bound, 0);
    r = parse_ok("gpu membw min_peer=87.5");
    T_NEAR(r.min_peer_pct, 87.5, 1e-12);
    T_EQ_S(nvs_rule_metric_name(NVS_RULE_GPU), "gpu");
}

static void t_gpus_rules(void)
{
    nvs_rule r = parse_ok("gpus per_host min=8");
    T_EQ_I(r.metric, NVS_RULE_GPUS);
    T_EQ_I(r.has_min, 1);
    T_NEAR(r.min, 8, 1e-12);
    r = parse_ok("gpus per_host min=1 severity=warn");
    T_EQ_I(r.warn_only, 1);
    T_EQ_S(nvs_rule_metric_name(NVS_RULE_GPUS), "gpus");
}

static void t_bad_lines(void)
{
    for (size_t i = 0; i < sizeof bad_lines / sizeof bad_lines[0]; i++) {
        nvs_rule r;
        char err[256] = "";
        if (nvs_rule_parse_line(bad_lines[i].line, &r, err, sizeof err) == 0)
            T_FAIL("'%s' was accepted, expected: %s", bad_lines[i].line, bad_lines[i].msg);
        if (!strstr(err, bad_lines[i].msg))
            T_FAIL("'%s': message \"%s\" lacks \"%s\"", bad_lines[i].line, err, bad_lines[i].msg);
    }
}

static void t_file_text(void)
{
    const char *text = "# acceptance of node 7\r\n"
                       "\n"
                       "nvscale-rules 1   # version\r\n"
                       "busbw all_reduce size=1G n=2 min=300\r\n"
                       "   \t\n"
                       "p2p uni min=350 # every pair\n"
                       "efficiency train n=max below_baseline<=3%"; /* no final newline */
    nvs_ruleset rs = {0};
    int line = -1;
    char err[256] = "";
    T_EQ_I(nvs_rules_parse_text(text, "node7.rules", &rs, &line, err, sizeof err), 0);
    T_EQ_U(rs.n, 3);
    T_EQ_I(rs.v[0].line, 4);
    T_EQ_I(rs.v[1].line, 6);
    T_EQ_I(rs.v[2].line, 7);
    T_EQ_S(rs.v[2].source, "node7.rules");
    T_EQ_I(nvs_ruleset_needs_baseline(&rs), 1);
    nvs_ruleset_free(&rs);
}

/* a UTF-8 byte-order mark before the header (Notepad's "UTF-8 with BOM") was a header error that did not show
 * what it had found: it is skipped, at the start of the file only */
static void t_file_bom(void)
{
    nvs_ruleset rs = {0};
    int line = -1;
    char err[256] = "";
    T_EQ_I(nvs_rules_parse_text("\xEF\xBB\xBFnvscale-rules 1\r\np2p uni min=350\r\n", "bom.rules", &rs, &line, err,
                                sizeof err), 0);
    T_EQ_U(rs.n, 1);
    T_EQ_I(rs.v[0].line, 2);
    nvs_ruleset_free(&rs);
    T_EQ_I(nvs_rules_parse_text("\xEF\xBB\xBF# node 7\nnvscale-rules 1\np2p uni min=350\n", "bom.rules", &rs, &line,
                                err, sizeof err), 0);
    T_EQ_U(rs.n, 1);
    nvs_ruleset_free(&rs);
    /* a BOM and no header is still the header's error, on line 1 */
    T_EQ_I(nvs_rules_parse_text("\xEF\xBB\xBFp2p uni min=350\n", "bom.rules", &rs, &line, err, sizeof err), -1);
    T_EQ_I(line, 1);
    T_CONTAINS(err, "expected the header 'nvscale-rules 1'");
    nvs_ruleset_free(&rs);
}

static const struct {
    const char *text;
    int line;
    const char *msg;
} bad_files[] = {
    {"", 0, "empty"},
    {"\n# just a comment\n", 1, "empty"},
    {"busbw all_reduce n=2 min=1\n", 1, "expected the header 'nvscale-rules 1'"},
    {"nvscale-rules\nbusbw all_reduce n=2 min=1\n", 1, "the header needs a version"},
    {"nvscale-rules one\n", 1, "version 'one' is not a number"},
    {"\n\nnvscale-rules 3\n", 3, "unsupported rules version 3"},
    {"nvscale-rules 1\n", 1, "no rules after the header"},
    {"nvscale-rules 1\nbusbw all_reduce n=2 min=1\n\nbusbw all_reduce n=2 mim=1\n", 4, "unknown key 'mim'"},
    {"nvscale-rules 1\nnvscale-rules 1\n", 2, "unknown metric 'nvscale-rules'"},
};

static void t_bad_files(void)
{
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        nvs_ruleset rs = {0};
        int line = -1;
        char err[256] = "";
        int rc = nvs_rules_parse_text(bad_files[i].text, "f", &rs, &line, err, sizeof err);
        nvs_ruleset_free(&rs);
        if (rc != -1) T_FAIL("file %zu accepted (rc %d), expected line %d: %s", i, rc, bad_files[i].line, bad_files[i].msg);
        if (line != bad_files[i].line) T_FAIL("file %zu: error on line %d, expected %d (%s)", i, line, bad_files[i].line, err);
        if (!strstr(err, bad_files[i].msg)) T_FAIL("file %zu: message \"%s\" lacks \"%s\"", i, err, bad_files[i].msg);
    }
}

static void t_long_line(void)
{
    char line[NVS_LINE_MAX + 2]; /* the documented limit (core/units.h) plus one */
    memset(line, 'a', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    nvs_rule r;
    char err[256];
    T_EQ_I(nvs_rule_parse_line(line, &r, err, sizeof err), -1);
    T_CONTAINS(err, "line longer than");
}

/* issue 14: "size=0" was accepted (a rule no run can match); sizes start at 1 byte, as -b */
static void t_size_zero(void)
{
    nvs_rule r;
    char err[256];
    T_EQ_I(nvs_rule_parse_line("busbw all_reduce size=0 n=2 min=1", &r, err, sizeof err), -1);
    T_CONTAINS(err, "size: 0 bytes");
    T_EQ_I(nvs_rule_parse_line("busbw all_reduce size<=0 n=2 min=1", &r, err, sizeof err), -1);
    T_EQ_I(nvs_rule_parse_line("busbw all_reduce size=1 n=2 min=1", &r, err, sizeof err), 0);
    /* one number parser: hex and signs are not numbers */
    T_EQ_I(nvs_rule_parse_line("busbw all_reduce size=1M n=2 min=0x10", &r, err, sizeof err), -1);
    T_EQ_I(nvs_rule_parse_line("busbw all_reduce size=1M n=+2 min=1", &r, err, sizeof err), -1);
}

T_LIST = {
    T_CASE(t_size_zero), T_CASE(t_busbw_exact), T_CASE(t_busbw_range_and_selectors), T_CASE(t_p2p_and_efficiency), T_CASE(t_gpu_rules), T_CASE(t_gpus_rules), T_CASE(t_bad_lines),
    T_CASE(t_file_text),   T_CASE(t_file_bom), T_CASE(t_bad_files),                 T_CASE(t_long_line),
};
T_MAIN
