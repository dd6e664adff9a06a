"""Data (fixed seeds) and hand-written NumPy floors of the model workloads W7-W11.

Each floor computes the loss and the gradients by hand with the kernels a
careful NumPy programmer would pick, in the same order the frameworks return
them, so that every framework's result is checked against it before timing.
W7, W8 and W10 are float32 (as users train them), W9 and W11 float64.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

SEED = 20240607
_swv = np.lib.stride_tricks.sliding_window_view


def _rng(offset: int) -> np.random.Generator:
    return np.random.default_rng(SEED + offset)


def _normal(rng: np.random.Generator, shape: Tuple[int, ...], scale: float,
            dtype: Any = np.float32) -> np.ndarray:
    return (rng.normal(size=shape) * scale).astype(dtype)


# -- W7: CNN step ---------------------------------------------------------------------
def cnn_data(batch: int = 64) -> Dict[str, Any]:
    """28x28x1 images; conv 3x3x32 + ReLU + pool 2, conv 3x3x64 + ReLU + pool 2, dense 10."""
    rng = _rng(7)
    params = [_normal(rng, (3, 3, 1, 32), 1 / 3), _normal(rng, (32,), 0.1),
              _normal(rng, (3, 3, 32, 64), 1 / np.sqrt(288)), _normal(rng, (64,), 0.1),
              _normal(rng, (7 * 7 * 64, 10), 1 / np.sqrt(3136)), _normal(rng, (10,), 0.1)]
    labels = np.eye(10, dtype=np.float32)[rng.integers(10, size=batch)]
    return {"x": _normal(rng, (batch, 28, 28, 1), 1.0), "labels": labels, "params": params}


def _conv_same(x: np.ndarray, w: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """3x3 stride-1 SAME convolution (NHWC, HWIO) as one GEMM over the patch matrix."""
    n, h, wd, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = _swv(padded, (3, 3), axis=(1, 2)).transpose(0, 1, 2, 4, 5, 3).reshape(n * h * wd, -1)
    return (cols @ w.reshape(-1, w.shape[3])).reshape(n, h, wd, -1), cols


def _conv_same_input_grad(dy: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The input gradient of `_conv_same`: a SAME convolution with the flipped filter."""
    flipped = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
    return _conv_same(dy, flipped)[0]


def _pool2(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def _pool2_grad(x: np.ndarray, y: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """Routes dy to the maxima (ties after ReLU are zeros, whose gradient ReLU drops)."""
    n, h, w, c = x.shape
    windows = x.reshape(n, h // 2, 2, w // 2, 2, c)
    mask = windows == y[:, :, None, :, None, :]
    return (mask * dy[:, :, None, :, None, :]).reshape(x.shape)


def cnn_floor(x: np.ndarray, labels: np.ndarray, params: List[np.ndarray]):
    w1, b1, w2, b2, w3, b3 = params
    n = x.shape[0]
    z1, cols1 = _conv_same(x, w1)
    a1 = np.maximum(z1 + b1, 0)
    p1 = _pool2(a1)
    z2, cols2 = _conv_same(p1, w2)
    a2 = np.maximum(z2 + b2, 0)
    p2 = _pool2(a2)
    flat = p2.reshape(n, -1)
    logits = flat @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    loss = np.sum(labels * (np.log(total) - shifted)) / n
    dlogits = (exp / total - labels) / n
    dw3, db3 = flat.T @ dlogits, dlogits.sum(axis=0)
    dp2 = (dlogits @ w3.T).reshape(p2.shape)
    da2 = _pool2_grad(a2, p2, dp2) * (a2 > 0)
    dw2 = (cols2.T @ da2.reshape(-1, 64)).reshape(w2.shape)
    db2 = da2.sum(axis=(0, 1, 2))
    dp1 = _conv_same_input_grad(da2, w2)
    da1 = _pool2_grad(a1, p1, dp1) * (a1 > 0)
    dw1 = (cols1.T @ da1.reshape(-1, 32)).reshape(w1.shape)
    db1 = da1.sum(axis=(0, 1, 2))
    return loss, [dw1, db1, dw2, db2, dw3, db3]


# -- W8: recurrent cells ------------------------------------------------------------------
def rnn_data(cell: str, steps: int = 200, batch: int = 16, features: int = 32,
             hidden: int = 32) -> Dict[str, Any]:
    """Inputs [T, B, D], the cell's weights over [x, h] and a fixed read-out of h_T.
    LSTM: W [D+H, 4H] (gates i, f, g, o), b [4H]. GRU: Wzr [D+H, 2H], bzr, Wn [D+H, H], bn."""
    rng = _rng(8 if cell == "lstm" else 9)
    scale = 1 / np.sqrt(features + hidden)
    if cell == "lstm":
        params = [_normal(rng, (features + hidden, 4 * hidden), scale),
                  _normal(rng, (4 * hidden,), 0.1)]
    else:
        params = [_normal(rng, (features + hidden, 2 * hidden), scale),
                  _normal(rng, (2 * hidden,), 0.1),
                  _normal(rng, (features + hidden, hidden), scale), _normal(rng, (hidden,), 0.1)]
    return {"x": _normal(rng, (steps, batch, features), 1.0),
            "readout": _normal(rng, (batch, hidden), 1.0), "params": params, "hidden": hidden,
            "cell": cell}


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * z) + 1)


def lstm_floor(x: np.ndarray, readout: np.ndarray, params: List[np.ndarray]):
    """loss = sum(h_T * readout) of an LSTM from zero state; gradients of W and b."""
    w, b = params
    steps, batch, _ = x.shape
    hidden = readout.shape[1]
    h = np.zeros((batch, hidden), x.dtype)
    c = np.zeros_like(h)
    saved = []
    for t in range(steps):
        xh = np.concatenate([x[t], h], axis=1)
        z = xh @ w + b
        i, f, o = (_sigmoid(z[:, k * hidden:(k + 1) * hidden]) for k in (0, 1, 3))
        g = np.tanh(z[:, 2 * hidden:3 * hidden])
        c_prev = c
        c = f * c + i * g
        tc = np.tanh(c)
        h = o * tc
        saved.append((xh, i, f, g, o, c_prev, tc))
    loss = np.sum(h * readout)
    dw, db = np.zeros_like(w), np.zeros_like(b)
    dh, dc = readout.copy(), np.zeros_like(h)
    dz = np.empty((batch, 4 * hidden), x.dtype)
    for t in range(steps - 1, -1, -1):
        xh, i, f, g, o, c_prev, tc = saved[t]
        dc = dc + dh * o * (1 - tc * tc)
        dz[:, 0:hidden] = dc * g * i * (1 - i)
        dz[:, hidden:2 * hidden] = dc * c_prev * f * (1 - f)
        dz[:, 2 * hidden:3 * hidden] = dc * i * (1 - g * g)
        dz[:, 3 * hidden:] = dh * tc * o * (1 - o)
        dc = dc * f
        dw += xh.T @ dz
        db += dz.sum(axis=0)
        dh = dz @ w[-hidden:].T
    return loss, [dw, db]


def gru_floor(x: np.ndarray, readout: np.ndarray, params: List[np.ndarray]):
    """z, r = sigmoid([x, h] Wzr + bzr); n = tanh([x, r h] Wn + bn); h' = (1 - z) n + z h."""
    wzr, bzr, wn, bn = params
    steps, batch, features = x.shape
    hidden = readout.shape[1]
    h = np.zeros((batch, hidden), x.dtype)
    saved = []
    for t in range(steps):
        xh = np.concatenate([x[t], h], axis=1)
        zr = _sigmoid(xh @ wzr + bzr)
        z, r = zr[:, :hidden], zr[:, hidden:]
        xrh = np.concatenate([x[t], r * h], axis=1)
        n = np.tanh(xrh @ wn + bn)
        saved.append((xh, xrh, h, z, r, n))
        h = (1 - z) * n + z * h
    loss = np.sum(h * readout)
    grads = [np.zeros_like(p) for p in params]
    dh = readout.copy()
    dzr = np.empty((batch, 2 * hidden), x.dtype)
    for t in range(steps - 1, -1, -1):
        xh, xrh, h_prev, z, r, n = saved[t]
        dn = dh * (1 - z) * (1 - n * n)
        grads[2] += xrh.T @ dn
        grads[3] += dn.sum(axis=0)
        drh = dn @ wn[features:].T
        dzr[:, :hidden] = dh * (h_prev - n) * z * (1 - z)
        dzr[:, hidden:] = drh * h_prev * r * (1 - r)
        grads[0] += xh.T @ dzr
        grads[1] += dzr.sum(axis=0)
        dh = dh * z + drh * r + dzr @ wzr[features:].T
    return loss, grads


# -- W9: MAML-style meta-gradient ---------------------------------------------------------
def maml_data(tasks: int = 25, shots: int = 10, features: int = 40) -> Dict[str, Any]:
    """Linear regression tasks: support and query sets, meta-parameters w, inner step 0.1."""
    rng = _rng(10)
    true_w = rng.normal(size=(tasks, features, 1))
    xs = rng.normal(size=(tasks, shots, features))
    xq = rng.normal(size=(tasks, shots, features))
    return {"xs": xs, "ys": xs @ true_w, "xq": xq, "yq": xq @ true_w,
            "w": rng.normal(size=(features, 1)) * 0.1, "alpha": 0.1}


def maml_floor(xs, ys, xq, yq, w, alpha):
    """Mean over tasks of the query loss after one inner gradient step, and its
    (second-order) gradient w.r.t. w: sum_t (I - alpha H_t) dL_t/dw'_t / T."""
    tasks, shots, _ = xs.shape
    inner_grad = (2 / shots) * np.swapaxes(xs, 1, 2) @ (xs @ w - ys)
    adapted = w - alpha * inner_grad
    residual = xq @ adapted - yq
    meta_loss = np.mean(np.mean(residual * residual, axis=(1, 2)))
    outer = (2 / shots) * np.swapaxes(xq, 1, 2) @ residual / tasks
    back = outer - alpha * (2 / shots) * np.swapaxes(xs, 1, 2) @ (xs @ outer)
    return meta_loss, back.sum(axis=0)


# -- W10: transformer encoder block ------------------------------------------------------
def encoder_data(seq: int = 128, width: int = 256, heads: int = 4,
                 ffn: int = 1024) -> Dict[str, Any]:
    """Pre-LN block: h = x + MHA(LN1 x); y = h + W2 gelu(W1 LN2 h); loss = sum(y * target).
    Params: Wq, Wk, Wv, Wo, g1, be1, g2, be2, W1, b1, W2, b2."""
    rng = _rng(11)
    s = 1 / np.sqrt(width)
    params = [_normal(rng, (width, width), s) for _ in range(4)]
    params += [(1 + _normal(rng, (width,), 0.1)), _normal(rng, (width,), 0.1),
               (1 + _normal(rng, (width,), 0.1)), _normal(rng, (width,), 0.1)]
    params += [_normal(rng, (width, ffn), s), _normal(rng, (ffn,), 0.1),
               _normal(rng, (ffn, width), 1 / np.sqrt(ffn)), _normal(rng, (width,), 0.1)]
    return {"x": _normal(rng, (seq, width), 1.0), "target": _normal(rng, (seq, width), 0.05),
            "params": params, "heads": heads}


LN_EPS = 1e-5
GELU_C = np.float32(np.sqrt(2 / np.pi))


def _layer_norm(x, gamma, beta):
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    inv = 1 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + LN_EPS)
    normed = centred * inv
    return normed * gamma + beta, normed, inv


def _layer_norm_grad(dy, normed, inv, gamma):
    dn = dy * gamma
    width = dn.shape[-1]
    dx = inv * (dn - dn.mean(axis=-1, keepdims=True)
                - normed * (dn * normed).sum(axis=-1, keepdims=True) / width)
    return dx, (dy * normed).sum(axis=0), dy.sum(axis=0)


def _split_heads(t, heads):
    seq, width = t.shape
    return t.reshape(seq, heads, width // heads).transpose(1, 0, 2)


def _merge_heads(t):
    heads, seq, depth = t.shape
    return t.transpose(1, 0, 2).reshape(seq, heads * depth)


def encoder_floor(x, target, params, heads):
    wq, wk, wv, wo, g1, be1, g2, be2, w1, b1, w2, b2 = params
    depth = x.shape[1] // heads
    scale = np.float32(1 / np.sqrt(depth))
    l1, n1, inv1 = _layer_norm(x, g1, be1)
    q, k, v = (_split_heads(l1 @ m, heads) for m in (wq, wk, wv))
    scores = (q @ k.transpose(0, 2, 1)) * scale
    scores -= scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    attn = _merge_heads(p @ v)
    h = x + attn @ wo
    l2, n2, inv2 = _layer_norm(h, g2, be2)
    u = l2 @ w1 + b1
    t = np.tanh(GELU_C * (u + 0.044715 * (u * u * u)))  # u ** 3: NumPy's float32 power is slow
    act = 0.5 * u * (1 + t)
    y = h + act @ w2 + b2
    loss = np.sum(y * target)
    dy = target
    dw2, db2 = act.T @ dy, dy.sum(axis=0)
    dact = dy @ w2.T
    du = dact * (0.5 * (1 + t) + 0.5 * u * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * u * u))
    dw1, db1 = l2.T @ du, du.sum(axis=0)
    dh2, dg2, dbe2 = _layer_norm_grad(du @ w1.T, n2, inv2, g2)
    dh = dy + dh2
    dwo = attn.T @ dh
    dattn = _split_heads(dh @ wo.T, heads)
    dp = dattn @ v.transpose(0, 2, 1)
    dv = p.transpose(0, 2, 1) @ dattn
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) * scale
    dq, dk = ds @ k, ds.transpose(0, 2, 1) @ q
    dq, dk, dv = _merge_heads(dq), _merge_heads(dk), _merge_heads(dv)
    dwq, dwk, dwv = l1.T @ dq, l1.T @ dk, l1.T @ dv
    dl1 = dq @ wq.T + dk @ wk.T + dv @ wv.T
    dx1, dg1, dbe1 = _layer_norm_grad(dl1, n1, inv1, g1)
    return loss, [dx1 + dh, dwq, dwk, dwv, dwo, dg1, dbe1, dg2, dbe2, dw1, db1, dw2, db2]


# -- W11: physics-informed loss ---------------------------------------------------------------
def pinn_data(points: int = 2000, width: int = 32) -> Dict[str, Any]:
    """u = MLP(x, y) (2-32-32-32-1, tanh); loss = mean((u_xx + u_yy - f)^2); gradients of
    W1..W4 and b1..b3 (b4 cannot reach second derivatives: it is left out)."""
    rng = _rng(12)
    sizes = (2, width, width, width, 1)
    weights = [rng.normal(size=(a, b)) / np.sqrt(a) for a, b in zip(sizes[:-1], sizes[1:])]
    biases = [rng.normal(size=(b,)) * 0.1 for b in sizes[1:]]
    xy = rng.uniform(-1, 1, size=(points, 2))
    return {"x": xy[:, :1].copy(), "y": xy[:, 1:].copy(),
            "f": np.sin(np.pi * xy[:, :1]) * np.sin(np.pi * xy[:, 1:]),
            "weights": weights, "biases": biases}


def pinn_floor(x, y, f, weights, biases):
    """Taylor-mode forward (value, first and pure second derivatives along x and y),
    then its reverse pass by hand."""
    a = np.concatenate([x, y], axis=1)
    points = a.shape[0]
    da = np.zeros((2,) + a.shape)          # d a / d input_k, k = x, y
    da[0, :, 0] = 1
    da[1, :, 1] = 1
    d2a = np.zeros_like(da)
    tape = []
    for w, b in zip(weights[:-1], biases[:-1]):
        z, dz, d2z = a @ w + b, da @ w, d2a @ w
        a_new = np.tanh(z)
        s = 1 - a_new * a_new
        t = -2 * a_new * s
        tape.append((a, da, d2a, a_new, s, t, dz, d2z))
        a, da, d2a = a_new, s * dz, s * d2z + t * dz * dz
    lap = (d2a @ weights[-1]).sum(axis=0)
    residual = lap - f
    loss = np.mean(residual * residual)
    g_lap = 2 * residual / points
    g_w = [np.zeros_like(w) for w in weights]
    g_b = [np.zeros_like(b) for b in biases[:-1]]
    g_w[-1] = np.einsum("knh,no->ho", d2a, g_lap)
    g_a = np.zeros_like(a)
    g_da = np.zeros_like(da)
    g_d2a = np.broadcast_to(g_lap @ weights[-1].T, d2a.shape)
    for layer in range(len(tape) - 1, -1, -1):
        a_prev, da_prev, d2a_prev, a_out, s, t, dz, d2z = tape[layer]
        w = weights[layer]
        g_d2z = g_d2a * s
        g_dz = g_d2a * t * 2 * dz + g_da * s
        g_s = (g_d2a * d2z + g_da * dz).sum(axis=0)
        g_t = (g_d2a * dz * dz).sum(axis=0)
        g_a_out = g_a + g_t * (-2 * s) + (g_s + g_t * (-2 * a_out)) * (-2 * a_out)
        g_z = g_a_out * s
        g_w[layer] = (a_prev.T @ g_z + np.einsum("knh,kno->ho", da_prev, g_dz)
                      + np.einsum("knh,kno->ho", d2a_prev, g_d2z))
        g_b[layer] = g_z.sum(axis=0)
        g_a = g_z @ w.T
        g_da = g_dz @ w.T
        g_d2a = g_d2z @ w.T
    return loss, g_w + g_b
