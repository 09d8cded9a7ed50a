"""The `ner` transition loop's per-token product without blis's packing (session 14, speed only).

spaCy's greedy transition loop (`Parser.greedy_parse` -> `predict_states`) scores each step with
one small product, hidden state (n_states x 64) times the output layer (74 x 64, transposed),
through the function pointer in thinc's `CBlas`, which is blis's `sgemm`. blis copies ("packs")
both operands into its own blocks on every call: for one row, that copying costs several times the
arithmetic, about 2 ms of a 1 KB text's model time on this project's machine (docs/ner.md,
"Throughput": session 13's profile). thinc lets that pointer be swapped (`set_sgemm`, exported by
its compiled module to other compiled code).

Here a small kernel is compiled at load with llvmlite (LLVM's code generator, a registry wheel: no
compiler on the machine) and set as the `ner` model's `sgemm`. For the call the loop makes (A not
transposed, B transposed, alpha 1, beta 0, K <= 256) it computes each output as blis does: one
chain of fused multiply-adds over k from zero, so every score is the same float, bit for bit; it
runs eight outputs' chains side by side. Any other call goes to blis unchanged. At load the kernel
is checked against blis on random operands of the model's own sizes (1 to 64 states) and installed
only when every element is bit-identical; without llvmlite, on a failed check or with another kind
of `ner` model, blis stays (`install` returns False and the backend logs it).
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any

log = logging.getLogger("veil_ner.spacy")

# thinc's sgemm_ptr: (bint transA, bint transB, int M, int N, int K, float alpha, const float* A,
# int lda, const float* B, int ldb, float beta, float* C, int ldc)
_SGEMM = ctypes.CFUNCTYPE(
    None,
    *(ctypes.c_int,) * 5,
    ctypes.c_float,
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_float,
    ctypes.c_void_p,
    ctypes.c_int,
)
# blis computes a product with K up to its block size (256 for float on x86-64) as one chain per
# output; past it the chains are split, and the kernel below would round differently.
MAX_K = 256

# The kernel in LLVM's assembly language. Rows i of A and C; outputs j in blocks of eight, then
# one by one; each output one fma chain over k, as blis's micro-kernel does it.
_IR = r"""
declare float @llvm.fma.f32(float, float, float)

define void @veil_parser_sgemm(i32 %ta, i32 %tb, i32 %m, i32 %n, i32 %k, float %alpha, ptr %a,
                               i32 %lda, ptr %b, i32 %ldb, float %beta, ptr %c, i32 %ldc) {
entry:
  %nota = icmp eq i32 %ta, 0
  %istb = icmp ne i32 %tb, 0
  %one = fcmp oeq float %alpha, 1.0
  %zero = fcmp oeq float %beta, 0.0
  %smallk = icmp sle i32 %k, MAX_K
  %c1 = and i1 %nota, %istb
  %c2 = and i1 %one, %zero
  %c3 = and i1 %c1, %c2
  %fast = and i1 %c3, %smallk
  br i1 %fast, label %rows, label %other

other:
  %fallback = inttoptr i64 FALLBACK to ptr
  call void %fallback(i32 %ta, i32 %tb, i32 %m, i32 %n, i32 %k, float %alpha, ptr %a, i32 %lda,
                      ptr %b, i32 %ldb, float %beta, ptr %c, i32 %ldc)
  ret void

rows:
  %i = phi i32 [0, %entry], [%i.next, %row.end]
  %i.done = icmp sge i32 %i, %m
  br i1 %i.done, label %exit, label %row

row:
  %i64 = sext i32 %i to i64
  %lda64 = sext i32 %lda to i64
  %ldc64 = sext i32 %ldc to i64
  %ldb64 = sext i32 %ldb to i64
  %aoff = mul i64 %i64, %lda64
  %arow = getelementptr float, ptr %a, i64 %aoff
  %coff = mul i64 %i64, %ldc64
  %crow = getelementptr float, ptr %c, i64 %coff
  br label %blocks

blocks:
  %j = phi i32 [0, %row], [%j.next8, %block.end]
  %j.end = add i32 %j, 8
  %block.fits = icmp sle i32 %j.end, %n
  br i1 %block.fits, label %block, label %singles

block:
  %j64 = sext i32 %j to i64
  %b0off = mul i64 %j64, %ldb64
  %b0 = getelementptr float, ptr %b, i64 %b0off
  %b1 = getelementptr float, ptr %b0, i64 %ldb64
  %b2 = getelementptr float, ptr %b1, i64 %ldb64
  %b3 = getelementptr float, ptr %b2, i64 %ldb64
  %b4 = getelementptr float, ptr %b3, i64 %ldb64
  %b5 = getelementptr float, ptr %b4, i64 %ldb64
  %b6 = getelementptr float, ptr %b5, i64 %ldb64
  %b7 = getelementptr float, ptr %b6, i64 %ldb64
  br label %block.k

block.k:
  %kk = phi i32 [0, %block], [%kk.next, %block.body]
  %s0 = phi float [0.0, %block], [%t0, %block.body]
  %s1 = phi float [0.0, %block], [%t1, %block.body]
  %s2 = phi float [0.0, %block], [%t2, %block.body]
  %s3 = phi float [0.0, %block], [%t3, %block.body]
  %s4 = phi float [0.0, %block], [%t4, %block.body]
  %s5 = phi float [0.0, %block], [%t5, %block.body]
  %s6 = phi float [0.0, %block], [%t6, %block.body]
  %s7 = phi float [0.0, %block], [%t7, %block.body]
  %kk.done = icmp sge i32 %kk, %k
  br i1 %kk.done, label %block.store, label %block.body

block.body:
  %kk64 = sext i32 %kk to i64
  %pa = getelementptr float, ptr %arow, i64 %kk64
  %va = load float, ptr %pa
  %p0 = getelementptr float, ptr %b0, i64 %kk64
  %v0 = load float, ptr %p0
  %t0 = call float @llvm.fma.f32(float %va, float %v0, float %s0)
  %p1 = getelementptr float, ptr %b1, i64 %kk64
  %v1 = load float, ptr %p1
  %t1 = call float @llvm.fma.f32(float %va, float %v1, float %s1)
  %p2 = getelementptr float, ptr %b2, i64 %kk64
  %v2 = load float, ptr %p2
  %t2 = call float @llvm.fma.f32(float %va, float %v2, float %s2)
  %p3 = getelementptr float, ptr %b3, i64 %kk64
  %v3 = load float, ptr %p3
  %t3 = call float @llvm.fma.f32(float %va, float %v3, float %s3)
  %p4 = getelementptr float, ptr %b4, i64 %kk64
  %v4 = load float, ptr %p4
  %t4 = call float @llvm.fma.f32(float %va, float %v4, float %s4)
  %p5 = getelementptr float, ptr %b5, i64 %kk64
  %v5 = load float, ptr %p5
  %t5 = call float @llvm.fma.f32(float %va, float %v5, float %s5)
  %p6 = getelementptr float, ptr %b6, i64 %kk64
  %v6 = load float, ptr %p6
  %t6 = call float @llvm.fma.f32(float %va, float %v6, float %s6)
  %p7 = getelementptr float, ptr %b7, i64 %kk64
  %v7 = load float, ptr %p7
  %t7 = call float @llvm.fma.f32(float %va, float %v7, float %s7)
  %kk.next = add i32 %kk, 1
  br label %block.k

block.store:
  %q0 = getelementptr float, ptr %crow, i64 %j64
  store float %s0, ptr %q0
  %q1 = getelementptr float, ptr %q0, i64 1
  store float %s1, ptr %q1
  %q2 = getelementptr float, ptr %q0, i64 2
  store float %s2, ptr %q2
  %q3 = getelementptr float, ptr %q0, i64 3
  store float %s3, ptr %q3
  %q4 = getelementptr float, ptr %q0, i64 4
  store float %s4, ptr %q4
  %q5 = getelementptr float, ptr %q0, i64 5
  store float %s5, ptr %q5
  %q6 = getelementptr float, ptr %q0, i64 6
  store float %s6, ptr %q6
  %q7 = getelementptr float, ptr %q0, i64 7
  store float %s7, ptr %q7
  br label %block.end

block.end:
  %j.next8 = add i32 %j, 8
  br label %blocks

singles:
  %js = phi i32 [%j, %blocks], [%js.next, %single.store]
  %js.done = icmp sge i32 %js, %n
  br i1 %js.done, label %row.end, label %single

single:
  %js64 = sext i32 %js to i64
  %bsoff = mul i64 %js64, %ldb64
  %bs = getelementptr float, ptr %b, i64 %bsoff
  br label %single.k

single.k:
  %ks = phi i32 [0, %single], [%ks.next, %single.body]
  %ss = phi float [0.0, %single], [%ts, %single.body]
  %ks.done = icmp sge i32 %ks, %k
  br i1 %ks.done, label %single.store, label %single.body

single.body:
  %ks64 = sext i32 %ks to i64
  %psa = getelementptr float, ptr %arow, i64 %ks64
  %vsa = load float, ptr %psa
  %psb = getelementptr float, ptr %bs, i64 %ks64
  %vsb = load float, ptr %psb
  %ts = call float @llvm.fma.f32(float %vsa, float %vsb, float %ss)
  %ks.next = add i32 %ks, 1
  br label %single.k

single.store:
  %qs = getelementptr float, ptr %crow, i64 %js64
  store float %ss, ptr %qs
  %js.next = add i32 %js, 1
  br label %singles

row.end:
  %i.next = add i32 %i, 1
  br label %rows

exit:
  ret void
}
"""


def _capsule_pointer(capsule: object) -> int:
    """The C pointer a Cython module exports in `__pyx_capi__` (a PyCapsule named by its type)."""
    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    pointer = ctypes.pythonapi.PyCapsule_GetPointer
    pointer.restype, pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return int(pointer(capsule, name(capsule)))


class Kernel:
    """The compiled kernel (kept alive with its JIT engine) and a thinc `CBlas` that uses it."""

    def __init__(self) -> None:
        import llvmlite.binding as llvm  # noqa: PLC0415 - optional, heavy: only at load
        from thinc.backends import cblas  # noqa: PLC0415

        base = cblas.CBlas()
        get_sgemm = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.py_object)(
            _capsule_pointer(cblas.__pyx_capi__["sgemm"])
        )
        self.fallback = int(get_sgemm(base))  # blis's sgemm, as every CBlas starts
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        source = _IR.replace("MAX_K", str(MAX_K)).replace("FALLBACK", str(self.fallback))
        module = llvm.parse_assembly(source)
        module.verify()
        target = llvm.Target.from_default_triple()
        machine = target.create_target_machine(
            cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=2
        )
        builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=2))
        builder.getModulePassManager().run(module, builder)
        self._engine = llvm.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        self.address = int(self._engine.get_function_address("veil_parser_sgemm"))
        set_sgemm = ctypes.CFUNCTYPE(None, ctypes.py_object, ctypes.c_void_p)(
            _capsule_pointer(cblas.__pyx_capi__["set_sgemm"])
        )
        self.cblas = cblas.CBlas()
        set_sgemm(self.cblas, self.address)
        self.call = _SGEMM(self.address)
        self.call_blis = _SGEMM(self.fallback)


def same_as_blis(kernel: Kernel, classes: int, hiddens: int, seed: int = 0) -> bool:
    """Whether the kernel's products equal blis's bit for bit on random operands of the loop's
    sizes (1 to 64 states: `nlp.pipe` batches up to 64 texts), scaled like the model's."""
    import numpy as np  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    for states in (1, 2, 3, 5, 8, 13, 32, 64):
        a = rng.standard_normal((states, hiddens)).astype(np.float32)
        b = (rng.standard_normal((classes, hiddens)) * 0.1).astype(np.float32)
        out = []
        for call in (kernel.call_blis, kernel.call):
            c = np.full((states, classes), np.nan, dtype=np.float32)
            call(
                0,
                1,
                states,
                classes,
                hiddens,
                1.0,
                a.ctypes.data,
                hiddens,
                b.ctypes.data,
                hiddens,
                0.0,
                c.ctypes.data,
                classes,
            )
            out.append(c)
        if out[0].tobytes() != out[1].tobytes():
            return False
    return True


def install(nlp: Any) -> bool:
    """Give the pipeline's `ner` model a `CBlas` whose `sgemm` is the kernel, when llvmlite is
    installed, the model is spaCy's transition model and the kernel is bit-identical to blis on
    its sizes. False (blis stays) otherwise."""
    model = nlp.get_pipe("ner").model if "ner" in nlp.pipe_names else None
    sizes = _sizes(model)
    if sizes is None:
        return False  # not spaCy's transition model (no `upper` layer), or K past blis's block
    kernel = _compiled()
    if kernel is None:
        return False
    if not same_as_blis(kernel, *sizes):
        log.warning("parser kernel differs from blis on this CPU: blis stays")
        return False
    model.ops = _ops_with(kernel)
    return True


def _sizes(model: Any) -> tuple[int, int] | None:
    """(classes, hidden width) of the transition model's output layer, or None."""
    try:
        upper = model.get_ref("upper")
        classes, hiddens = int(upper.get_dim("nO")), int(upper.get_dim("nI"))
    except (KeyError, ValueError, AttributeError):
        return None
    return (classes, hiddens) if hiddens <= MAX_K else None


def _compiled() -> Kernel | None:
    try:
        return Kernel()
    except ImportError:
        log.info("llvmlite not installed: the ner transition loop keeps blis's sgemm")
    except Exception as error:  # an LLVM or thinc this was not written for: blis stays
        log.warning("parser kernel not compiled", extra={"error": type(error).__name__})
    return None


def _ops_with(kernel: Kernel) -> Any:
    """thinc's NumpyOps without blis (as every other layer, spacy_backend.use_numpy_blas) whose
    `cblas()` is the kernel's; the parser reads `model.ops.cblas()` once per call."""
    from thinc.api import NumpyOps  # noqa: PLC0415

    class ParserOps(NumpyOps):  # type: ignore[misc]
        def cblas(self) -> Any:
            return kernel.cblas

    ops = ParserOps(use_blis=False)
    ops.kernel = kernel  # keeps the JIT engine (the code's memory) alive with the model
    return ops
