/* Model profiles (src/workload/profile.c, src/workload/profiles/): the parser on good and bad fixtures, repeat expansion, limits,
 * loading by name and by path, and the built-in profiles' parameter totals and FLOPs against reference numbers
 * derived here independently of tools/gen_profiles.py. Run from the repository root (tests/run.sh does). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "workload/profile.h"
#include "t.h"

#define FIX "tests/fixtures/profiles"

static char err[1024];

static const nvs_layer *find_layer(const nvs_profile *p, const char *name)
{
    for (int i = 0; i < p->nlayers; i++)
        if (!strcmp(p->layers[i].name, name)) return &p->layers[i];
    return NULL;
}

static void t_good_minimal(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load(FIX "/good_minimal.prof", &p, err, sizeof err), NVS_OK);
    T_EQ_S(p.name, "tiny");
    T_EQ_S(p.source, "hand-written test fixture");
    T_EQ_S(p.sample, "one sample"); /* default */
    T_EQ_I(p.default_batch, 1);      /* default */
    T_EQ_I(p.nlayers, 1);
    T_NEAR(p.total_params, 1000, 0);
    T_NEAR(p.fwd_flops_per_sample, 0, 0);
    nvs_profile_free(&p);
    nvs_profile_free(&p); /* twice is harmless */
}

static void t_good_full(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load(FIX "/good_full.prof", &p, err, sizeof err), NVS_OK);
    T_EQ_S(p.name, "full-test_1.0");
    T_EQ_S(p.source, "Test fixture # with a hash and  two blanks inside quotes");
    T_EQ_S(p.sample, "one sample of 3 tokens");
    T_EQ_I(p.default_batch, 32);
    T_EQ_I(p.nlayers, 4);
    T_EQ_S(p.layers[0].name, "emb");
    T_NEAR(p.layers[0].ew_passes, 2, 0);
    const nvs_layer *fc = find_layer(&p, "fc");
    T_ASSERT(fc);
    T_NEAR(fc->params, 4096, 0); /* 4.096e3 */
    T_NEAR(fc->gemm_m, 3, 0);
    T_NEAR(fc->gemm_n, 64, 0);
    T_NEAR(fc->gemm_k, 64, 0);
    T_NEAR(fc->act_elems, 192, 0);
    T_NEAR(fc->ew_passes, 0.5, 0);
    T_NEAR(find_layer(&p, "out")->params, 250, 0); /* 2.5E+2 */
    T_NEAR(find_layer(&p, "pool")->act_elems, 100, 0);
    T_NEAR(find_layer(&p, "pool")->ew_passes, 0.5, 0); /* .5 */
    T_NEAR(p.total_params, 96000 + 4096 + 250, 0);
    T_NEAR(p.fwd_flops_per_sample, 2.0 * (3 * 64 * 64 + 3 * 250 * 64), 0);
    nvs_profile_free(&p);
}

static void t_good_crlf(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load(FIX "/good_crlf.prof", &p, err, sizeof err), NVS_OK);
    T_EQ_S(p.name, "crlf");
    T_EQ_S(p.source, "Windows line endings");
    T_EQ_I(p.default_batch, 4);
    T_NEAR(p.layers[0].act_elems, 2, 0);
    nvs_profile_free(&p);
}

/* a, 3 x (b, 2 x c), d: the order and the totals of nested repeat blocks */
static void t_repeat_nested(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load(FIX "/good_nested.prof", &p, err, sizeof err), NVS_OK);
    static const char *const order = "abccbccbccd";
    T_EQ_I(p.nlayers, (int)strlen(order));
    for (int i = 0; i < p.nlayers; i++) {
        char want[2] = {order[i], 0};
        T_EQ_S(p.layers[i].name, want);
    }
    T_NEAR(p.total_params, 1 + 3 * 10 + 1000, 0);
    T_NEAR(p.fwd_flops_per_sample, 3 * 2.0 * 2 * 3 * 4 + 2.0 * 10 * 2 * 3, 0);
    T_NEAR(p.layers[3].ew_passes, 1.5, 0);
    nvs_profile_free(&p);
}

/* exactly NVS_PROFILE_MAX_LAYERS after expansion is accepted; one more is refused (bad_too_many_layers) */
static void t_layer_cap(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load(FIX "/good_cap.prof", &p, err, sizeof err), NVS_OK);
    T_EQ_I(p.nlayers, NVS_PROFILE_MAX_LAYERS);
    T_NEAR(p.total_params, NVS_PROFILE_MAX_LAYERS / 2, 0);
    nvs_profile_free(&p);
}

/* Every tests/fixtures/profiles/bad_*.prof starts with "# expect: LINE: TEXT": loading it must fail with
 * NVS_ERR_INPUT and "PATH:LINE: ...TEXT..." */
static void t_bad_fixtures(void)
{
    DIR *d = opendir(FIX);
    if (!d) T_FAIL("cannot open %s (run from the repository root)", FIX);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "bad_", 4) || len < 5 || strcmp(e->d_name + len - 5, ".prof")) continue;
        char path[512], first[512], want_prefix[600], want_text[512];
        snprintf(path, sizeof path, "%s/%s", FIX, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) T_FAIL("cannot open %s", path);
        int line = 0;
        int ok = fgets(first, sizeof first, f) && sscanf(first, "# expect: %d: %511[^\n]", &line, want_text) == 2;
        fclose(f);
        if (!ok) {
            closedir(d);
            T_FAIL("%s: first line is not '# expect: LINE: TEXT'", path);
        }
        nvs_profile p;
        nvs_result_t r = nvs_profile_load(path, &p, err, sizeof err);
        snprintf(want_prefix, sizeof want_prefix, "%s:%d: ", path, line);
        if (r != NVS_ERR_INPUT || strncmp(err, want_prefix, strlen(want_prefix)) || !strstr(err, want_text) ||
            p.layers || p.nlayers) {
            closedir(d);
            T_FAIL("%s: got %s \"%s\", expected NVS_ERR_INPUT \"%s...%s...\"", path, nvs_result_name(r), err,
                   want_prefix, want_text);
        }
        n++;
    }
    closedir(d);
    /* the fixtures exist: a missing directory or renamed files must not pass silently */
    if (n < 40) T_FAIL("only %d bad_*.prof fixtures found in %s, expected >= 40", n, FIX);
}

static void expect_parse_error(const char *text, const char *want)
{
    nvs_profile p;
    nvs_result_t r = nvs_profile_parse(text, "inline", &p, err, sizeof err);
    if (r != NVS_ERR_INPUT || !strstr(err, want))
        T_FAIL("got %s \"%s\", expected NVS_ERR_INPUT containing \"%s\"", nvs_result_name(r), err, want);
    T_ASSERT(p.layers == NULL && p.nlayers == 0);
}

static void t_parse_edges(void)
{
    expect_parse_error(NULL, "inline:1: empty profile");
    expect_parse_error("", "inline:1: empty profile");
    expect_parse_error("# only a comment\n\n", "inline:2: empty profile");
    /* a line over 4096 characters */
    size_t n = 5000;
    char *big = malloc(n + 64);
    T_ASSERT(big);
    strcpy(big, "nvscale-profile 1\n# ");
    memset(big + strlen(big), 'x', n);
    big[20 + n] = '\0';
    nvs_profile p;
    nvs_result_t r = nvs_profile_parse(big, "inline", &p, err, sizeof err);
    free(big);
    T_EQ_I(r, NVS_ERR_INPUT);
    T_CONTAINS(err, "inline:2: line longer than 4096");
    /* the error message is truncated, never overflowed, with a tiny buffer */
    char small[12];
    memset(small, 'Z', sizeof small);
    T_EQ_I(nvs_profile_parse("nvscale-profile 9\n", "inline", &p, small, 8), NVS_ERR_INPUT);
    T_EQ_I(strlen(small), 7);
    T_EQ_I(small[8], 'Z');
    /* numbers at the limits */
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname n\nsource s\nlayer a params=1e15 gemm=2147483647,1,1\n",
                             "inline", &p, err, sizeof err),
           NVS_OK);
    T_NEAR(p.total_params, 1e15, 0);
    nvs_profile_free(&p);
    expect_parse_error("nvscale-profile 1\nname n\nsource s\nlayer a params=1.000000001e15\n", "between 0 and");
    expect_parse_error("nvscale-profile 1\nname n\nsource s\nlayer a params=+5\n", "not a finite decimal");
    expect_parse_error("nvscale-profile 1\nname n\nsource s\nlayer a params=5 act\n", "expected key=value");
    expect_parse_error("nvscale-profile 1\nname n\nsource s\nlayer \"a b\" params=5\n", "must not be quoted");
    expect_parse_error("nvscale-profile 1\nname n\nsource \"s\"x\nlayer a params=5\n", "after a closing quote");
    expect_parse_error("nvscale-profile 1\nname n\nsource s\nend extra\n", "inline:4: 'end' takes nothing");
    expect_parse_error("nvscale-profile 1\nname n\nsource s t\n", "inline:3: 'source' takes one value");
}

static void t_load_errors(void)
{
    nvs_profile p;
    /* an unknown name lists the built-ins */
    T_EQ_I(nvs_profile_load("resnet-50", &p, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "unknown model profile 'resnet-50'");
    for (const char *const *n = nvs_profile_builtin_names(); *n; n++) T_CONTAINS(err, *n);
    T_ASSERT(p.layers == NULL);
    T_EQ_I(nvs_profile_load(FIX "/no-such-file.prof", &p, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "cannot open model profile " FIX "/no-such-file.prof");
    T_EQ_I(nvs_profile_load(FIX, &p, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "not a regular file");
    T_EQ_I(nvs_profile_load("", &p, err, sizeof err), NVS_ERR_INPUT);
    T_EQ_I(nvs_profile_load(NULL, &p, err, sizeof err), NVS_ERR_INPUT);
}

/* Reference totals, each derived here from the published architecture (not from the generator's lists). */
static double ssd300_params(void)
{
    /* torchvision resnet50 minus layer4 (3 blocks) and fc = the backbone through conv4_x */
    double layer4 = (1024 * 512 + 1024 + 512 * 512 * 9 + 1024 + 512 * 2048 + 4096 + 1024 * 2048 + 4096) +
                    2 * (2048 * 512 + 1024 + 512 * 512 * 9 + 1024 + 512 * 2048 + 4096);
    double backbone = 25557032 - layer4 - (2048 * 1000 + 1000);
    /* five extra blocks: 1x1 in->mid + BN, 3x3 mid->out + BN */
    static const int in[5] = {1024, 512, 512, 256, 256}, mid[5] = {256, 256, 128, 128, 128},
                     out[5] = {512, 512, 256, 256, 256};
    double extra = 0;
    for (int i = 0; i < 5; i++) extra += in[i] * mid[i] + 2 * mid[i] + mid[i] * out[i] * 9 + 2 * out[i];
    /* loc (4 per box) and conf (81 per box) 3x3 convs with bias on the six maps */
    static const int ch[6] = {1024, 512, 512, 256, 256, 256}, nd[6] = {4, 6, 6, 6, 4, 4};
    double heads = 0;
    for (int i = 0; i < 6; i++) heads += (4 + 81) * nd[i] * (9.0 * ch[i] + 1);
    return backbone + extra + heads;
}

static void t_builtin_totals(void)
{
    const double d = 1024;
    const struct {
        const char *name;
        double params;
    } want[] = {
        {"resnet50", 25557032},        /* torchvision resnet50 */
        /* torchvision maskrcnn_resnet50_fpn: 44,401,393 in its documentation, less conv1 and layer1, which its
         * default trainable_backbone_layers=3 freezes (the same 222,400 weights as maskrcnn-nvidia's below) */
        {"maskrcnn", 44401393.0 - 9408 -
                         (64 * 64 + 64 * 64 * 9 + 64 * 256 + 64 * 256 + 2 * (256 * 64 + 64 * 64 * 9 + 64 * 256))},
        {"bert-large", 335141888.0 /* HF BertModel bert-large */ + (d * d + d) + 2 * d + 30522 + (2 * d + 2)},
        /* HF BertForMaskedLM bert-large-uncased: BertModel without the pooler, MLM transform + LayerNorm + bias */
        {"bert-large-mlm128", 335141888.0 - (d * d + d) + (d * d + d) + 2 * d + 30522},
        {"gpt2-xl", 1557611200},       /* HF gpt2-xl */
        {"transformer-xl-large",       /* counted from kimiyoung/transformer-xl mem_transformer.py, WT103 large */
         (20000 * 1024 + 20000 * 256 + 160000 * 64 + 67735 * 16 + 1024 * (1024 + 256 + 64 + 16)) /* adaptive emb */
             + 18 * (3 * d * d + d * d + d * d + 2 * 4 * d * d + 4 * d + d + 4 * d) /* qkv, o, r, ffn, 2 LN */
             + 2 * 16 * 64                                                        /* r_w_bias, r_r_bias */
             + d * d + 267735 + 3 * d + 3}, /* head projection, output biases, cluster weight/bias */
        {"ssd300", ssd300_params()},
        /* Lambda's BERT-large SQuAD logs print model_weights_num 335,150,082: HF BertModel with the vocabulary
         * padded from 30522 to 30528 (6 x 1024 more word-embedding weights) plus qa_outputs Linear(1024, 2) */
        {"bert-large-squad", 335141888.0 + 6 * d + (2 * d + 2)},
        {"bert-large-squad", 335150082},
        /* maskrcnn with maskrcnn-benchmark's 81 classes (10 fewer in cls_score, bbox_pred and mask logits) and the
         * stem and layer1 frozen (FREEZE_CONV_BODY_AT 2: 64*3*7*7 stem weights + layer1's 212,992 conv weights) */
        {"maskrcnn-nvidia", 44401393.0 - 10 * (1024 + 1) - 40 * (1024 + 1) - 10 * (256 + 1) - 9408 -
                                (64 * 64 + 64 * 64 * 9 + 64 * 256 + 64 * 256 + 2 * (256 * 64 + 64 * 64 * 9 + 64 * 256))},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        nvs_profile p;
        if (nvs_profile_load(want[i].name, &p, err, sizeof err) != NVS_OK) T_FAIL("%s: %s", want[i].name, err);
        double got = p.total_params;
        int nl = p.nlayers;
        nvs_profile_free(&p);
        if (got != want[i].params)
            T_FAIL("%s: %.0f parameters, expected %.0f", want[i].name, got, want[i].params);
        T_ASSERT(nl > 10);
        n++;
    }
    T_EQ_I(n, 10);
    /* the ranges the task gives: ssd300 22-26M, bert-large ~336M, transformer-xl ~257M by the paper (the code
     * counts 285M: see docs/profiles.md) */
    T_ASSERT(ssd300_params() > 22e6 && ssd300_params() < 26e6);
}

/* lm290m.prof describes exactly tools/ddp_bench.py's model (ddp_bench.py asserts the same count) */
static void t_lm290m(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load("tools/profiles/lm290m.prof", &p, err, sizeof err), NVS_OK);
    const double d = 1024, V = 32000, s = 512;
    double per_layer = (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d) + 2 * 2 * d;
    T_NEAR(p.total_params, V * d + s * d + 18 * per_layer + 2 * d + d * V, 0);
    T_NEAR(p.total_params, 292794368, 0);
    T_EQ_S(p.name, "lm290m");
    nvs_profile_free(&p);
}

static double fwd_gflop(const char *name)
{
    nvs_profile p;
    if (nvs_profile_load(name, &p, err, sizeof err) != NVS_OK) T_FAIL("%s: %s", name, err);
    double f = p.fwd_flops_per_sample / 1e9;
    nvs_profile_free(&p);
    return f;
}

/* FLOPs are 2 per multiply-add. */
static void t_builtin_flops(void)
{
    /* resnet50: 4.09 GMAC per 224x224 image (torchvision's model table) = 8.18 GFLOP */
    T_NEAR(fwd_gflop("resnet50"), 8.18, 0.05);
    /* bert-large, s = 512: per layer QKV, scores, context, output, FFN; then MLM transform + decoder, pooler, NSP */
    double s = 512, d = 1024, f = 4096, V = 30522;
    double bert = 24 * 2 * (s * 3 * d * d + s * s * d + s * d * s + s * d * d + 2 * s * d * f) +
                  2 * (s * d * d + s * V * d + d * d + 2 * d);
    T_NEAR(fwd_gflop("bert-large"), bert / 1e9, 1e-6);
    /* gpt2-xl, s = 1024, d = 1600: the well-known 2 * params * tokens + attention, with the tied LM head */
    s = 1024, d = 1600, f = 6400, V = 50257;
    double gpt2 = 48 * 2 * (s * 3 * d * d + 2 * s * s * d + s * d * d + 2 * s * d * f) + 2 * s * V * d;
    T_NEAR(fwd_gflop("gpt2-xl"), gpt2 / 1e9, 1e-6);
    T_ASSERT(gpt2 / 1e9 > 3400 && gpt2 / 1e9 < 3600); /* ~3.5 TFLOP per 1024-token sequence */
    /* the others: positive and in the range their size implies */
    double ssd = fwd_gflop("ssd300"), mask = fwd_gflop("maskrcnn"), txl = fwd_gflop("transformer-xl-large");
    T_ASSERT(ssd > 20 && ssd < 80);
    T_ASSERT(mask > 400 && mask < 700);
    T_ASSERT(txl > 200 && txl < 350);
}

static void t_builtin_names(void)
{
    static const char *const want[] = {"resnet50", "ssd300", "maskrcnn", "bert-large", "bert-large-mlm128",
                                       "transformer-xl-large", "gpt2-xl", "bert-large-squad", "maskrcnn-nvidia"};
    const char *const *n = nvs_profile_builtin_names();
    size_t i = 0;
    for (; n[i]; i++) {
        T_ASSERT(i < sizeof want / sizeof want[0]);
        T_EQ_S(n[i], want[i]);
        nvs_profile p;
        if (nvs_profile_load(n[i], &p, err, sizeof err) != NVS_OK) T_FAIL("%s: %s", n[i], err);
        /* the profile names itself as it is looked up, cites a source, and has a usable default batch */
        int ok = !strcmp(p.name, n[i]) && strlen(p.source) > 20 && p.default_batch >= 1 &&
                 p.nlayers <= NVS_PROFILE_MAX_LAYERS;
        for (int j = 0; ok && j < p.nlayers; j++) ok = p.layers[j].ew_passes == 0 || p.layers[j].act_elems > 0;
        nvs_profile_free(&p);
        T_ASSERT(ok);
    }
    T_EQ_U(i, sizeof want / sizeof want[0]);
}

/* the data-parallel mode: default ddp; maskrcnn-nvidia is apex delay_allreduce=True (DeepLearningExamples
 * tools/train_net.py); the parser takes the three names once, outside repeat blocks */
static void t_dp_mode(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load("maskrcnn-nvidia", &p, err, sizeof err), NVS_OK);
    T_EQ_I(p.dp, NVS_DP_DELAY);
    nvs_profile_free(&p);
    T_EQ_I(nvs_profile_load("bert-large-squad", &p, err, sizeof err), NVS_OK);
    T_EQ_I(p.dp, NVS_DP_DDP);
    nvs_profile_free(&p);
    static const char *const head = "nvscale-profile 1\nname t\nsource s\n";
    const struct {
        const char *body;
        int ok;
        nvs_dp_mode dp;
        const char *msg;
    } c[] = {
        {"layer a params=1\n", 1, NVS_DP_DDP, NULL},
        {"dp none\nlayer a params=1\n", 1, NVS_DP_NONE, NULL},
        {"dp delay\nlayer a params=1\n", 1, NVS_DP_DELAY, NULL},
        {"dp ddp\ndp none\nlayer a params=1\n", 0, 0, "t.prof:5: 'dp' given twice"},
        {"dp overlap\nlayer a params=1\n", 0, 0, "t.prof:4: 'dp' takes one of ddp, delay, none (got 'overlap')"},
        {"dp\nlayer a params=1\n", 0, 0, "t.prof:4: 'dp' takes one of ddp, delay, none (got '')"},
        {"repeat 2\ndp none\nend\nlayer a params=1\n", 0, 0, "t.prof:5: 'dp' inside a repeat block"},
        /* nograd: a frozen stem, a prefix of the layers without parameters */
        {"layer stem act=4 nograd=1\nlayer a params=1\n", 1, NVS_DP_DDP, NULL},
        {"layer a params=1 nograd=1\n", 0, 0,
         "t.prof:4: layer 'a': nograd=1 with params=1: a layer autograd never reaches has no gradients"},
        {"layer a params=1\nlayer b act=1 nograd=1\n", 0, 0,
         "t.prof:5: layer 'b': nograd=1 after a layer with gradients: only a prefix of the layers (a frozen stem) "
         "is out of autograd's reach"},
        {"layer a act=1 nograd=2\n", 0, 0, "t.prof:4: nograd=2: expected 0 or 1"},
        /* a repeat block of frozen and trainable layers: its second copy's frozen layers would follow the first
         * copy's trainable ones (the per-line check sees only the first copy) */
        {"repeat 2\nlayer s act=1 nograd=1\nlayer a params=1\nend\n", 0, 0,
         "t.prof:7: layer 's': nograd=1 after a layer with gradients in the block's next copy (the repeat on line 4): "
         "only a prefix of the layers (a frozen stem) is out of autograd's reach"},
        {"layer s0 act=1 nograd=1\nrepeat 2\nrepeat 3\nlayer s act=1 nograd=1\nend\nend\nlayer a params=1\n", 1,
         NVS_DP_DDP, NULL},
        {"repeat 1\nlayer s act=1 nograd=1\nlayer a params=1\nend\n", 1, NVS_DP_DDP, NULL},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "%s%s", head, c[i].body);
        nvs_result_t r = nvs_profile_parse(text, "t.prof", &p, err, sizeof err);
        if (c[i].ok) {
            T_EQ_I(r, NVS_OK);
            T_EQ_I(p.dp, c[i].dp);
            nvs_profile_free(&p);
        } else {
            T_EQ_I(r, NVS_ERR_INPUT);
            T_EQ_S(err, c[i].msg);
        }
    }
    T_EQ_S(nvs_dp_name(NVS_DP_DELAY), "delay");
    /* maskrcnn-nvidia (FREEZE_CONV_BODY_AT 2) and torchvision's maskrcnn (trainable_backbone_layers=3, its default
     * with a pretrained backbone, as its reference recipe trains it): the stem and layer1 are out of autograd's
     * reach, the rest is not */
    static const char *const frozen_stem[] = {"maskrcnn-nvidia", "maskrcnn"};
    for (int m = 0; m < 2; m++) {
        T_EQ_I(nvs_profile_load(frozen_stem[m], &p, err, sizeof err), NVS_OK);
        int frozen = 0;
        while (frozen < p.nlayers && p.layers[frozen].nograd) frozen++;
        T_EQ_I(frozen, 3 + 8 + 2 * 6); /* conv1, bn1, maxpool; layer1.0: 4 convs + 4 BNs; layer1.1-2: 3 + 3 each */
        T_EQ_S(p.layers[frozen].name, "backbone.body.layer2.0.conv1");
        nvs_profile_free(&p);
    }
}

/* layer-level spot checks against the implicit-GEMM rule: conv1 of resnet50 is 7x7x3 -> 64 at 112x112 */
static void t_resnet50_layers(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_load("resnet50", &p, err, sizeof err), NVS_OK);
    const nvs_layer *c1 = find_layer(&p, "conv1");
    T_ASSERT(c1);
    T_NEAR(c1->params, 64 * 3 * 7 * 7, 0);
    T_NEAR(c1->gemm_m, 112 * 112, 0);
    T_NEAR(c1->gemm_n, 64, 0);
    T_NEAR(c1->gemm_k, 3 * 7 * 7, 0);
    T_NEAR(c1->act_elems, 64 * 112 * 112, 0);
    const nvs_layer *fc = &p.layers[p.nlayers - 1];
    T_EQ_S(fc->name, "fc");
    T_NEAR(fc->params, 2048 * 1000 + 1000, 0);
    /* 53 convolutions (+ fc) and their 53 batch-norms after expansion */
    int gemms = 0;
    for (int i = 0; i < p.nlayers; i++) gemms += p.layers[i].gemm_m > 0;
    T_EQ_I(gemms, 54);
    /* torchvision's resnet50 has 161 parameter tensors (len(list(model.parameters()))): 53 convolutions without
     * bias, 53 batch norms with weight and bias, the classifier's weight and bias */
    double tensors = 0;
    for (int i = 0; i < p.nlayers; i++) tensors += p.layers[i].tensors > 0 ? p.layers[i].tensors : 0;
    T_NEAR(tensors, 161, 0);
    T_NEAR(c1->casts, 2, 0); /* autocast casts the weight and the fp32 image */
    const nvs_layer *bn1 = find_layer(&p, "bn1");
    T_ASSERT(bn1);
    T_NEAR(bn1->ops_fwd, 3, 0); /* batch norm, its num_batches_tracked += 1, ReLU */
    T_NEAR(bn1->ops_bwd, 2, 0);
    /* every GEMM but the classifier's is a convolution (conv=1, written by tools/gen_profiles.py) */
    int convs = 0;
    for (int i = 0; i < p.nlayers; i++) convs += p.layers[i].conv;
    T_EQ_I(convs, 53);
    T_EQ_I(c1->conv, 1);
    T_EQ_I(fc->conv, 0);
    /* and every convolution gives its geometry (conv2d=): the stem is 7x7 stride 2 pad 3 over 224x224 */
    int geoms = 0;
    for (int i = 0; i < p.nlayers; i++) geoms += nvs_layer_has_geom(&p.layers[i]);
    T_EQ_I(geoms, 53);
    T_EQ_I(c1->geom.h, 224);
    T_EQ_I(c1->geom.w, 224);
    T_EQ_I(c1->geom.r, 7);
    T_EQ_I(c1->geom.s, 7);
    T_EQ_I(c1->geom.stride, 2);
    T_EQ_I(c1->geom.pad, 3);
    T_EQ_I(nvs_layer_has_geom(fc), 0);
    /* its 53 batch norms are marked (bn=1.5 of each one's passes, tools/gen_profiles.py's BN) */
    int bns = 0;
    for (int i = 0; i < p.nlayers; i++) bns += p.layers[i].bn_passes == 1.5;
    T_EQ_I(bns, 53);
    /* layer2.0.downsample.0: a strided 1x1 over 56x56x256, 28x28 out */
    const nvs_layer *ds = find_layer(&p, "layer2.0.downsample.0");
    T_ASSERT(ds);
    T_EQ_I(ds->geom.h, 56);
    T_EQ_I(ds->geom.r, 1);
    T_EQ_I(ds->geom.stride, 2);
    T_EQ_I(ds->geom.pad, 0);
    T_NEAR(ds->gemm_m, 28 * 28, 0);
    nvs_profile_free(&p);
}

/* conv2d=H,W,R,S,U,P: read, implies conv=1, and must agree with the GEMM (profile.h); a layer without it has none.
 * The refusals are fixtures (bad_conv2d_*.prof). */
static void t_conv2d(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=36864 gemm=784,64,576 "
                             "conv2d=56,56,3,3,2,1\nlayer b params=4096 gemm=12,64,64 act=3 conv2d=3,4,1,1,1,0 "
                             "conv=1\nlayer c params=10 gemm=1,2,3 conv=1\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    T_EQ_I(p.layers[0].conv, 1);
    T_EQ_I(p.layers[0].geom.h, 56);
    T_EQ_I(p.layers[0].geom.stride, 2);
    T_EQ_I(p.layers[0].geom.pad, 1);
    T_EQ_I(nvs_layer_geom_out(56, 3, 2, 1), 28);
    T_EQ_I(p.layers[1].geom.h, 3);
    T_EQ_I(p.layers[1].geom.w, 4); /* not square: 3x4 in, 3x4 out = M 12 */
    T_EQ_I(nvs_layer_has_geom(&p.layers[2]), 0);
    T_EQ_I(p.layers[2].conv, 1);
    nvs_profile_free(&p);
}

/* ops=, casts=, tensors= are read when given and -1 (the training step's default) when not. */
static void t_framework_keys(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=10 gemm=1,2,3 ops=4,9 casts=3 "
                             "tensors=2 conv=1\nlayer b params=10 gemm=1,2,3 conv=0\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    T_EQ_I(p.nlayers, 2);
    T_NEAR(p.layers[0].ops_fwd, 4, 0);
    T_NEAR(p.layers[0].ops_bwd, 9, 0);
    T_NEAR(p.layers[0].casts, 3, 0);
    T_NEAR(p.layers[0].tensors, 2, 0);
    T_NEAR(p.layers[1].ops_fwd, -1, 0);
    T_NEAR(p.layers[1].ops_bwd, -1, 0);
    T_NEAR(p.layers[1].casts, -1, 0);
    T_NEAR(p.layers[1].tensors, -1, 0);
    T_EQ_I(p.layers[0].conv, 1);
    T_EQ_I(p.layers[1].conv, 0);
    nvs_profile_free(&p);
}

/* ew32=: of the ew passes, those autocast runs in fp32 (profile.h); the whole ew at most (a batch norm's own apart:
 * bad_ew32_*.prof); the built-in transformers carry it where tools/gen_profiles.py says, the CNNs nowhere. A bias
 * is N of params = N x K + N, and only that. */
static void t_ew32_and_bias(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer n params=2 act=8 ew=2.5 ew32=2.5\n"
                             "layer l params=12 gemm=1,3,3 act=3 ew=1.5 ew32=0\nlayer m params=9 gemm=1,3,3\n"
                             "layer b params=3 gemm=1,3,3\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    T_NEAR(p.layers[0].ew32_passes, 2.5, 0);
    T_NEAR(p.layers[1].ew32_passes, 0, 0);
    T_NEAR(nvs_layer_bias_elems(&p.layers[0]), 0, 0); /* no GEMM */
    T_NEAR(nvs_layer_bias_elems(&p.layers[1]), 3, 0); /* 3 x 3 + 3 */
    T_NEAR(nvs_layer_bias_elems(&p.layers[2]), 0, 0); /* the matrix alone */
    T_NEAR(nvs_layer_bias_elems(&p.layers[3]), 0, 0); /* a tied weight's own bias: not N x K + N */
    nvs_profile_free(&p);
    T_EQ_I(nvs_profile_load("tools/profiles/lm290m.prof", &p, err, sizeof err), NVS_OK);
    double f32 = 0;
    for (int l = 0; l < p.nlayers; l++) f32 += p.layers[l].ew32_passes;
    T_NEAR(f32, 3.5 + 18 * 4 * 1.5 + 1.5, 1e-9); /* embeddings, 2 LayerNorms + 2 residual adds a block, the last norm */
    nvs_profile_free(&p);
    T_EQ_I(nvs_profile_load("resnet50", &p, err, sizeof err), NVS_OK);
    for (int l = 0; l < p.nlayers; l++) T_NEAR(p.layers[l].ew32_passes, 0, 0);
    nvs_profile_free(&p);
}

/* ewb=: backward-only passes (profile.h), fractional, beside ew; lm290m's in_proj carries 4.5 (three zero-filled
 * view gradients, two adds: tools/gen_profiles.py), nothing else in it (bad_ewb_*.prof: the refusals; test_model.c
 * t_ewb: the kernels and the model's bytes) */
static void t_ewb(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=20 gemm=4,4,4 act=16\n"
                             "layer b params=20 gemm=4,4,4 act=16 ew=1 ewb=2.5\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    T_NEAR(p.layers[0].ewb_passes, 0, 0);
    T_NEAR(p.layers[1].ewb_passes, 2.5, 0);
    nvs_profile_free(&p);
    T_EQ_I(nvs_profile_load("tools/profiles/lm290m.prof", &p, err, sizeof err), NVS_OK);
    double ewb = 0;
    int layers = 0;
    for (int l = 0; l < p.nlayers; l++) {
        ewb += p.layers[l].ewb_passes;
        layers += p.layers[l].ewb_passes > 0;
    }
    T_NEAR(ewb, 18 * 4.5, 1e-9);
    T_EQ_I(layers, 18);
    nvs_profile_free(&p);
}

/* perm=: copies through a (batch, rows)-swapped view (profile.h); lm290m's in_proj and context carry one each (the
 * head split and merge), BERT's SDPA none (bad_perm_*.prof: the refusals; test_train.c t_view_passes: the step) */
static void t_perm(void)
{
    nvs_profile p;
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=20 gemm=4,4,4 act=16 ew=2.5 perm=0.5\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    T_NEAR(p.layers[0].perm_passes, 0.5, 0);
    nvs_profile_free(&p);
    const char *names[] = {"tools/profiles/lm290m.prof", "bert-large-mlm128"};
    for (int k = 0; k < 2; k++) {
        T_EQ_I(nvs_profile_load(names[k], &p, err, sizeof err), NVS_OK);
        double perm = 0;
        for (int l = 0; l < p.nlayers; l++) perm += p.layers[l].perm_passes;
        T_NEAR(perm, k == 0 ? 18 * 2 : 0, 0);
        nvs_profile_free(&p);
    }
}

/* ln=: a LayerNorm's own passes (profile.h); every LayerNorm of the built-in transformers carries NORM's 1.5 (lm290m's
 * 37, BERT-MLM's 50), nothing else (bad_ln_*.prof: the refusals; test_train.c t_ln_issue: the step) */
static void t_ln(void)
{
    const char *names[] = {"tools/profiles/lm290m.prof", "bert-large-mlm128", "resnet50"};
    const int want[] = {37, 50, 0};
    for (int k = 0; k < 3; k++) {
        nvs_profile p;
        T_EQ_I(nvs_profile_load(names[k], &p, err, sizeof err), NVS_OK);
        int n = 0;
        for (int l = 0; l < p.nlayers; l++) {
            if (p.layers[l].ln_passes <= 0) continue;
            n++;
            T_NEAR(p.layers[l].ln_passes, 1.5, 0);
            T_NEAR(p.layers[l].params, 2048, 0);
        }
        T_EQ_I(n, want[k]);
        nvs_profile_free(&p);
    }
}

T_LIST = {
    T_CASE(t_good_minimal),   T_CASE(t_good_full),      T_CASE(t_good_crlf),     T_CASE(t_repeat_nested),
    T_CASE(t_layer_cap),      T_CASE(t_bad_fixtures),   T_CASE(t_parse_edges),   T_CASE(t_load_errors),
    T_CASE(t_builtin_totals), T_CASE(t_lm290m),         T_CASE(t_builtin_flops), T_CASE(t_builtin_names),
    T_CASE(t_resnet50_layers), T_CASE(t_dp_mode),     T_CASE(t_framework_keys),
    T_CASE(t_conv2d),         T_CASE(t_ew32_and_bias),  T_CASE(t_ewb),
    T_CASE(t_perm),           T_CASE(t_ln),
};
T_MAIN
