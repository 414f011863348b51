#!/usr/bin/env python3
"""tests/fuzz/make_corpus.py - regenerates the seed corpora in corpus/<target>/.

The seeds are committed; this script documents how they were made and can
be rerun after a format change.  Seeds are small: the golden/format files,
prefixes and mutants of them, the sample ini files, policy strings, and
argument vectors (NUL-separated, after one selector byte; see fuzz_cli.c).
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def out(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def format_seeds():
    golden = read("tests", "golden", "format", "rst_example.txt")
    multi = read("tests", "data", "format", "multi.txt")
    out("format", "golden_rst_example", golden)
    out("format", "multi", multi)
    hdr = b"onnx_light_calibration_profiles 1\n"
    out("format", "header_only", hdr)
    out("format", "empty", b"")
    out("format", "newer_version", b"onnx_light_calibration_profiles 2\n")
    out("format", "bad_header", b"onnx_light_calibration_profile 1\n")
    for cut in (40, 100, 200, len(golden) - 4, len(golden) - 1):
        out("format", "golden_prefix_%d" % cut, golden[:cut])
    for cut in (300, 600, 900):
        out("format", "multi_prefix_%d" % cut, multi[:cut])
    portable = (hdr + b'profile portable override\nbackend "b"\noperator "o"\n'
                b'implementation "1"\nstructure "k" "v"\nstructure "a" "\\"q\\""\n'
                b'measurement "t" 1e-07 "s"\npolicy "x\\\\y\x00z\xff"\nend\n')
    out("format", "portable_escapes", portable)
    out("format", "unterminated", hdr + b'profile exact calibrated\nbackend "b')
    out("format", "backslash_eof", hdr + b'profile exact calibrated\nbackend "b\\')
    out("format", "crlf", golden.replace(b"\n", b"\r\n"))
    out("format", "duplicate", golden + golden[len(hdr):])
    out("format", "unknown_keyword", golden.replace(b"thread_count", b"threads"))
    out("format", "big_threads", golden.replace(b"thread_count 8", b"thread_count 99999999999999999999"))
    out("format", "nan_measure", golden.replace(b"2.5", b"nan"))
    out("format", "exp_measure", golden.replace(b"2.5", b"-2.5e+300"))
    out("format", "no_end", golden[: golden.rfind(b"end")])


def config_seeds():
    ex = os.path.join(ROOT, "config", "examples")
    for name in sorted(os.listdir(ex)):
        if name.endswith(".ini"):
            out("config", name, read("config", "examples", name))
    out("config", "default.ini", read("config", "default.ini"))
    out("config", "bom", b"\xef\xbb\xbf[host]\nthreads = 1\n")
    out("config", "workload", "[workload.w]\nbackend = b\noperator = o\n"
        "model_digest = sha256:" + "ab" * 32 + "\nm = 1\n")
    out("config", "comments", "; c\n# c\n[store]\npersistence = off\n\n[plugin.p]\nx = y\n")
    out("config", "bad_section", "[host\nthreads = 2\n")


def policy_seeds():
    cg = ["v1 kernel=avx2_6x16 mc=96 kc=256 nc=4096 split=ic pack=ab",
          "v1 kernel=scalar_4x4 mc=64 kc=128 nc=1024 split=none pack=none",
          "v1 kernel=sse2_4x8 mc=32 kc=64 nc=512 split=jc pack=bj",
          "v1 kernel=avx512_12x32 mc=192 kc=384 nc=8192 split=ic pack=abj",
          "v1 kernel=avx2_6x16 mc=96 kc=256 nc=4096 split=ic pack=a",
          "v2 kernel=avx2_6x16", "v1 kernel=avx2_6x16 mc=0 kc=256 nc=4096 split=ic pack=ab"]
    for i, s in enumerate(cg):
        out("policy_cpu_gemm", "p%d" % i, s)
    eg = ["v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16",
          "v1 tm=8 tn=8 tk=8 wm=1 wn=1 vec=1 local=0 wg=8x8",
          "v1 tm=32 tn=32 tk=8 wm=2 wn=2 vec=2 local=0 wg=16x16",
          "v1 tm=16 tn=64 tk=16 wm=2 wn=8 vec=8 local=1 wg=8x8",
          "v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x17", "v1"]
    for i, s in enumerate(eg):
        out("policy_example_gpu", "p%d" % i, s)


def cli_seeds():
    def argv(sel, *args):
        return bytes([sel]) + b"\x00".join(a.encode() for a in args)
    seeds = [
        argv(0, "--backend", "b", "--operator", "MatMul", "--implementation", "3",
             "--threads", "8", "--structure", "m=1", "--structure", "n=2", "--json"),
        argv(0, "--backend=b", "--model-digest=sha256:ab", "--processor", "p", "--levels", "exact"),
        argv(0, "--store", "/tmp/x", "--", "--json", "-"),
        argv(0, "--threads", "0", "--threads", "9999999999", "--structure", "=v"),
        argv(0, "--measurement", "t=2.5:us", "--measurement", "u=-1e-07", "--policy", "x"),
        argv(1, "--json", "--json", "-h", "--help=x", "--j", "5", "--j=6"),
        argv(1, "--dry-run", "pos", "-x", "--unknown"),
        argv(2, "--store", "", "--store=", "--"),
        argv(1, "1e308", "-0", "007", "1.7976931348623157e308", "4.9e-324", "0x10", "inf"),
    ]
    for i, s in enumerate(seeds):
        out("cli", "argv%d" % i, s)


if __name__ == "__main__":
    shutil.rmtree(os.path.join(HERE, "corpus"), ignore_errors=True)
    format_seeds()
    config_seeds()
    policy_seeds()
    cli_seeds()
