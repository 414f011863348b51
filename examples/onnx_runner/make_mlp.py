#!/usr/bin/python3
"""Writes the small MLP that onnx_runner's tests run and its test data, laid
out as ONNX's backend tests are: mlp/model.onnx with
mlp/test_data_set_0/input_0.pb and output_0.pb (float32), and the same
model in float16 (mlp_float16/) and bfloat16 (mlp_bfloat16/); and the
cases of the runner's error test (cases/).

    /usr/bin/python3 examples/onnx_runner/make_mlp.py [OUT_DIR]

Y = Gemm(Relu(X * W1 + b1), W2, b2, transB=1): a MatMul, an Add, a Relu
and a Gemm with a transposed weight and a bias, the weights initializers
(constants).  The weights and the input come from a fixed seed and are
rounded to the model's type; every node's output is computed in float64
from its inputs and rounded to the type once, as ONNX defines each
operator, so the files are the same on every machine.  Needs numpy and
onnx (Debian: python3-onnx).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

BATCH, IN, HIDDEN, OUT = 4, 16, 32, 8
SEED = 39


def to_bfloat16_bits(a):
    """float32 -> bfloat16 bits (uint16), rounded to nearest even."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def round_to(a, elem_type):
    """a (any float array) rounded to elem_type, returned as float64."""
    a = np.asarray(a, dtype=np.float64)
    if elem_type == TensorProto.FLOAT:
        return a.astype(np.float32).astype(np.float64)
    if elem_type == TensorProto.FLOAT16:
        return a.astype(np.float16).astype(np.float64)
    bits = to_bfloat16_bits(a.astype(np.float32)).astype(np.uint32) << 16
    return bits.view(np.float32).astype(np.float64)


def tensor(name, a, elem_type):
    """A TensorProto of a (already rounded to elem_type), raw_data little-endian."""
    if elem_type == TensorProto.FLOAT:
        raw = a.astype("<f4").tobytes()
    elif elem_type == TensorProto.FLOAT16:
        raw = a.astype("<f2").tobytes()
    else:
        raw = to_bfloat16_bits(a.astype(np.float32)).astype("<u2").tobytes()
    return helper.make_tensor(name, elem_type, list(a.shape), raw, raw=True)


def build(out_dir, elem_type):
    rng = np.random.default_rng(SEED)
    x = round_to(rng.standard_normal((BATCH, IN)), elem_type)
    w1 = round_to(rng.standard_normal((IN, HIDDEN)) / np.sqrt(IN), elem_type)
    b1 = round_to(0.1 * rng.standard_normal(HIDDEN), elem_type)
    w2 = round_to(rng.standard_normal((OUT, HIDDEN)) / np.sqrt(HIDDEN), elem_type)
    b2 = round_to(0.1 * rng.standard_normal(OUT), elem_type)

    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["h_bias"], name="fc1_bias"),
        helper.make_node("Relu", ["h_bias"], ["h_relu"], name="relu1"),
        helper.make_node("Gemm", ["h_relu", "w2", "b2"], ["y"], name="fc2", transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", elem_type, [BATCH, IN])],
        [helper.make_tensor_value_info("y", elem_type, [BATCH, OUT])],
        initializer=[
            tensor("w1", w1, elem_type),
            tensor("b1", b1, elem_type),
            tensor("w2", w2, elem_type),
            tensor("b2", b2, elem_type),
        ],
    )
    model = helper.make_model(
        graph,
        producer_name="onnx-light make_mlp.py",
        opset_imports=[helper.make_opsetid("", 13)],
    )
    onnx.checker.check_model(model)

    h = round_to(x @ w1, elem_type)
    h = round_to(h + b1, elem_type)
    h = np.maximum(h, 0.0)
    y = round_to(h @ w2.T + b2, elem_type)

    data = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "model.onnx"))
    for name, t in (("input_0.pb", tensor("x", x, elem_type)),
                    ("output_0.pb", tensor("y", y, elem_type))):
        with open(os.path.join(data, name), "wb") as f:
            f.write(t.SerializeToString())


def write_case(out_dir, model, tensors):
    """A model and its test_data_set_0 (tensors: file name -> TensorProto)."""
    data = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "model.onnx"))
    for name, t in tensors.items():
        with open(os.path.join(data, name), "wb") as f:
            f.write(t.SerializeToString())


def build_error_cases(out_dir):
    """What onnx_runner must refuse or report (its error test): an operator
    it does not run (exit 2), an output that differs (exit 1), a tensor
    file whose raw_data does not fit its dims (exit 2)."""
    rng = np.random.default_rng(SEED + 1)
    a = round_to(rng.standard_normal((3, 4)), TensorProto.FLOAT)
    b = round_to(rng.standard_normal((4, 5)), TensorProto.FLOAT)
    c = round_to(a @ b, TensorProto.FLOAT)

    def matmul_model(extra_nodes, out_name):
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["a", "b"], ["c"])] + extra_nodes,
            "case",
            [helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 4]),
             helper.make_tensor_value_info("b", TensorProto.FLOAT, [4, 5])],
            [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, [3, 5])])
        return helper.make_model(graph, producer_name="onnx-light make_mlp.py",
                                 opset_imports=[helper.make_opsetid("", 13)])

    inputs = {"input_0.pb": tensor("a", a, TensorProto.FLOAT),
              "input_1.pb": tensor("b", b, TensorProto.FLOAT)}
    write_case(os.path.join(out_dir, "unsupported_op"),
               matmul_model([helper.make_node("Sigmoid", ["c"], ["s"], name="squash")], "s"),
               dict(inputs, **{"output_0.pb": tensor("s", c, TensorProto.FLOAT)}))
    wrong = c.copy()
    wrong[1, 2] += 0.5
    write_case(os.path.join(out_dir, "wrong_output"), matmul_model([], "c"),
               dict(inputs, **{"output_0.pb": tensor("c", wrong, TensorProto.FLOAT)}))
    short = tensor("b", b, TensorProto.FLOAT)
    short.raw_data = short.raw_data[:-4]
    write_case(os.path.join(out_dir, "bad_tensor"), matmul_model([], "c"),
               {"input_0.pb": inputs["input_0.pb"], "input_1.pb": short,
                "output_0.pb": tensor("c", c, TensorProto.FLOAT)})


if __name__ == "__main__":
    base = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    build(os.path.join(base, "mlp"), TensorProto.FLOAT)
    build(os.path.join(base, "mlp_float16"), TensorProto.FLOAT16)
    build(os.path.join(base, "mlp_bfloat16"), TensorProto.BFLOAT16)
    build_error_cases(os.path.join(base, "cases"))
