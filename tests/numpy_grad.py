"""A numpy stand-in for the few ``jax`` calls the learned policies' training makes (problem-free).

The training (:func:`optsched.online.learned.train_pricing`) takes its gradients from ``jax.grad``;
``jax`` is the optional ``learn`` extra, absent from the development environment, so the tests
that train with it skip there. This stand-in lets a test run the *same* training loop on numpy:
``grad`` is a central finite difference over every weight (step ``H``), ``jit`` is the identity,
``numpy`` is numpy, ``nn.softmax`` a stable softmax and ``enable_x64`` a no-op (numpy computes in
float64). It is slow (two evaluations per weight), so it suits only small networks.

Accuracy: central differences of an analytic function with step 1e-6 in float64 are exact to
about 1e-8 relative (truncation h^2, rounding 1e-16 / h), far below what Adam's normalized
steps can tell apart.
"""

from __future__ import annotations

import contextlib
import types

import numpy as np

#: the finite-difference step (see the module docstring)
H = 1e-6


def _softmax(x, axis=-1):
    x = np.asarray(x, float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def grad(f):
    """``d f(ws, *args) / d ws`` for ``ws`` a list of arrays (central differences)."""
    def g(ws, *args):
        ws = [np.array(w, float) for w in ws]
        out = []
        for w in ws:
            dw = np.zeros_like(w)
            flat, dflat = w.reshape(-1), dw.reshape(-1)
            for i in range(flat.size):
                keep = flat[i]
                flat[i] = keep + H
                up = float(f(ws, *args))
                flat[i] = keep - H
                down = float(f(ws, *args))
                flat[i] = keep
                dflat[i] = (up - down) / (2 * H)
            out.append(dw)
        return out
    return g


jax = types.SimpleNamespace(numpy=np, grad=grad, jit=lambda f: f, nn=types.SimpleNamespace(softmax=_softmax),
                            enable_x64=lambda flag=True: contextlib.nullcontext())
