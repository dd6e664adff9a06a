"""Keras-3 optimizers and schedules: trajectories recorded from TF 2.21 / Keras 3.

Every optimizer runs three steps on two variables (and a sparse embedding
with repeated rows) in eager mode, inside `dg.function` (slots built on the
first traced call) and in graph mode (a Session runs the training op), and
must follow Keras's numbers.
"""
import warnings

import numpy as np
import pytest

import duograd as dg
from sparse_training import train_with_slices
from optimizer_inputs import B0, E0, GB, GW, SPARSE_STEPS, W0

O = dg.keras.optimizers
S = O.schedules

OPTIMIZERS = {
    "sgd": lambda: O.SGD(0.1),
    "sgd_momentum": lambda: O.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: O.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: O.Adam(0.1),
    "adam_amsgrad": lambda: O.Adam(0.1, amsgrad=True),
    "adamw": lambda: O.AdamW(0.1, weight_decay=0.1),
    "rmsprop": lambda: O.RMSprop(0.1),
    "rmsprop_momentum": lambda: O.RMSprop(0.1, momentum=0.5),
    "rmsprop_centered": lambda: O.RMSprop(0.1, momentum=0.5, centered=True),
    "adagrad": lambda: O.Adagrad(0.1),
    "adamax": lambda: O.Adamax(0.1),
    "nadam": lambda: O.Nadam(0.1),
    "sgd_clipnorm": lambda: O.SGD(0.1, clipnorm=0.3),
    "sgd_clipvalue": lambda: O.SGD(0.1, clipvalue=0.2),
    "sgd_global_clipnorm": lambda: O.SGD(0.1, global_clipnorm=0.3),
    "sgd_exponential": lambda: O.SGD(S.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)),
    "adam_cosine": lambda: O.Adam(S.CosineDecay(0.1, decay_steps=4, warmup_target=0.2,
                                                warmup_steps=2)),
}

# Recorded from TF 2.21 / Keras 3 (keras.optimizers.*, apply_gradients on tf.Variables):
# after each of three steps, [w, b] (dense) or the (5, 2) embedding (sparse, IndexedSlices
# gradients with repeated rows).
DENSE = {
    'sgd': [[[[0.99000001, -1.98000002], [0.469999999, 2.96000004]], [0.200000003,
        -0.649999976]], [[[1.03999996, -1.98500001], [0.449999988, 2.97000003]], [0.180000007,
        -0.679999948]], [[[1.00999999, -2.0150001], [0.48999998, 2.94499993]], [0.24000001,
        -0.689999938]]],
    'sgd_momentum': [[[[0.99000001, -1.98000002], [0.469999999, 2.96000004]], [0.200000003,
        -0.649999976]], [[[1.03100002, -1.96700001], [0.423000008, 2.93400002]], [0.135000005,
        -0.589999974]], [[[1.03789997, -1.98530006], [0.420700014, 2.88560009]], [0.136500016,
        -0.546000004]]],
    'sgd_nesterov': [[[[0.981000006, -1.96200001], [0.442999989, 2.92400002]], [0.155000001,
        -0.560000002]], [[[1.06789994, -1.95529997], [0.380699992, 2.91059995]], [0.076500006,
        -0.536000013]], [[[1.04410994, -2.00177002], [0.418630004, 2.84204006]], [0.137850016,
        -0.506400049]]],
    'adam': [[[[0.900003791, -1.90000224], [0.400001705, 2.90000153]], [0.150001317,
        -0.650000989]], [[[0.959838212, -1.85305667], [0.302968323, 2.85305548]],
        [0.0601452366, -0.607216716]], [[[0.967291594, -1.88518202], [0.300238937,
        2.78888845]], [0.0613342486, -0.580391705]]],
    'adam_amsgrad': [[[[0.900003791, -1.90000224], [0.400001705, 2.90000153]], [0.150001317,
        -0.650000989]], [[[0.959838212, -1.85305667], [0.302968323, 2.85305548]],
        [0.0601452366, -0.607216716]], [[[0.967291594, -1.88518202], [0.300238937,
        2.78888845]], [0.0613342486, -0.580391705]]],
    'adamw': [[[[0.8900038, -1.88000226], [0.395001709, 2.87000155]], [0.14750132,
        -0.642500997]], [[[0.940938175, -1.81425667], [0.294018269, 2.79435539]],
        [0.0561702326, -0.5932917]], [[[0.938982189, -1.82823944], [0.288348705, 2.70224476]],
        [0.0567975417, -0.560533762]]],
    'rmsprop': [[[[0.683788061, -1.68377614], [0.183773994, 2.68377328]], [-0.066227138,
        -0.433772385]], [[[0.994472325, -1.76435745], [0.00195655227, 2.76435542]],
        [-0.189085931, -0.529118598]], [[[0.827573955, -2.03306103], [0.24588576, 2.58806324]],
        [0.0561695993, -0.562433422]]],
    'rmsprop_momentum': [[[[0.683788061, -1.68377614], [0.183773994, 2.68377328]],
        [-0.066227138, -0.433772385]], [[[0.836366355, -1.60624552], [-0.156156451,
        2.60624194]], [-0.3471995, -0.37100479]], [[[0.745757103, -1.83618379], [-0.0821924657,
        2.39118409]], [-0.242430151, -0.372935802]]],
    'rmsprop_centered': [[[[0.666685164, -1.66667128], [0.166668713, 2.6666677]],
        [-0.0833325982, -0.416666836]], [[[0.821313143, -1.58241713], [-0.201094925,
        2.58241272]], [-0.384003639, -0.347128808]], [[[0.731605649, -1.8126775],
        [-0.141023532, 2.35273123]], [-0.28907901, -0.346038401]]],
    'adagrad': [[[[0.969848871, -1.94654775], [0.431175292, 2.92155361]], [0.165484577,
        -0.654653728]], [[[1.05318224, -1.95979309], [0.389472425, 2.94079852]], [0.133458942,
        -0.682154655]], [[[1.00846088, -2.02201009], [0.453523695, 2.89744306]], [0.202740967,
        -0.691283345]]],
    'adamax': [[[[0.900000095, -1.9000001], [0.400000036, 2.9000001]], [0.150000036,
        -0.650000036]], [[[0.943157971, -1.86575532], [0.317461401, 2.86575532]],
        [0.0815105289, -0.618389487]], [[[0.948255301, -1.88826454], [0.315339625,
        2.82101655]], [0.0824330375, -0.602120817]]],
    'nadam': [[[[0.893721342, -1.89372122], [0.393721223, 2.89372134]], [0.143721253,
        -0.643721223]], [[[0.992492497, -1.91151619], [0.331030428, 2.91151643]],
        [0.0990660489, -0.66618526]], [[[0.944229841, -1.99654734], [0.402945459, 2.85144854]],
        [0.171706945, -0.671473801]]],
    'sgd_clipnorm': [[[[0.99452275, -1.9890455], [0.483568311, 2.978091]], [0.236583591,
        -0.723167181]], [[[1.02179551, -1.99177277], [0.47265923, 2.98354554]], [0.219942585,
        -0.748128712]], [[[1.00760949, -2.0059588], [0.49157387, 2.97172379]], [0.249534398,
        -0.753060699]]],
    'sgd_clipvalue': [[[[0.99000001, -1.98000002], [0.479999989, 2.98000002]], [0.230000004,
        -0.730000019]], [[[1.00999999, -1.98500001], [0.459999979, 2.99000001]], [0.210000008,
        -0.75]], [[[0.99000001, -2.00500011], [0.479999989, 2.97000003]], [0.230000004,
        -0.75999999]]],
    'sgd_global_clipnorm': [[[[0.997590363, -1.99518073], [0.492771029, 2.99036145]],
        [0.237951711, -0.725903392]], [[[1.02039897, -1.99746156], [0.483647585, 2.99492311]],
        [0.228828281, -0.739588559]], [[[1.01015913, -2.0077014], [0.497300714, 2.98638988]],
        [0.24930796, -0.743001819]]],
    'sgd_exponential': [[[[0.99000001, -1.98000002], [0.469999999, 2.96000004]], [0.200000003,
        -0.649999976]], [[[1.01499999, -1.98250008], [0.460000008, 2.96500015]], [0.189999998,
        -0.664999962]], [[[1.00749993, -1.99000013], [0.469999999, 2.95875025]], [0.204999998,
        -0.667499959]]],
    'adam_cosine': [[[[0.900003791, -1.90000224], [0.400001705, 2.90000153]], [0.150001317,
        -0.650000989]], [[[0.989755452, -1.82958376], [0.254451603, 2.82958245]],
        [0.0152171999, -0.585824549]], [[[1.00466216, -1.89383435], [0.248992845, 2.70124841]],
        [0.0175952259, -0.532174468]]],
}

SPARSE = {
    'sgd': [[[-0.360000014, -0.280000031], [-0.100000009, 0], [0.0699999928, 0.239999995],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.360000014, -0.280000031],
        [-0.120000005, -0.0400000028], [0.0699999928, 0.239999995], [0.300000012, 0.399999976],
        [0.479999989, 0.649999976]], [[-0.360000014, -0.280000031], [-0.120000005,
        -0.0400000028], [0.0499999896, 0.149999976], [0.300000012, 0.399999976], [0.479999989,
        0.649999976]]],
    'sgd_momentum': [[[-0.360000014, -0.280000031], [-0.100000009, 0], [0.0699999928,
        0.239999995], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.414000005,
        -0.352000028], [-0.120000012, -0.0400000028], [0.0429999903, 0.275999993],
        [0.300000012, 0.399999976], [0.479999989, 0.649999976]], [[-0.462599993, -0.416800022],
        [-0.138000011, -0.076000005], [-0.00130001083, 0.218399987], [0.300000012,
        0.399999976], [0.461999983, 0.694999993]]],
    'sgd_nesterov': [[[-0.414000034, -0.352000028], [-0.100000009, 0], [0.0429999903,
        0.275999993], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.462600023,
        -0.416800022], [-0.138000011, -0.076000005], [0.0186999906, 0.308400005], [0.300000012,
        0.399999976], [0.462000012, 0.694999933]], [[-0.506340027, -0.475120008],
        [-0.154200017, -0.108400002], [-0.0411700159, 0.166559994], [0.300000012, 0.399999976],
        [0.445800006, 0.735499918]]],
    'adam': [[[-0.417668194, -0.326489657], [-0.100000009, 0], [1.71363354e-06, 0.299998522],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.496512443, -0.41124481],
        [-0.133278251, -0.0941248164], [-0.067002736, 0.367003143], [0.300000012, 0.399999976],
        [0.42558825, 0.674412429]], [[-0.557459712, -0.476761192], [-0.159002587,
        -0.166884035], [-0.126033649, 0.322039694], [0.300000012, 0.399999976], [0.368067384,
        0.731933832]]],
    'adam_amsgrad': [[[-0.417668194, -0.326489657], [-0.100000009, 0], [1.71363354e-06,
        0.299998522], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.496473014,
        -0.411202401], [-0.133278251, -0.0941248164], [-0.0669692233, 0.366969645],
        [0.300000012, 0.399999976], [0.42558825, 0.674412429]], [[-0.557359278, -0.476653278],
        [-0.158989727, -0.166847646], [-0.126000136, 0.322006196], [0.300000012, 0.399999976],
        [0.368096143, 0.731905103]]],
    'adamw': [[[-0.414668202, -0.324489653], [-0.0990000069, 0], [-0.000998288393,
        0.297998548], [0.297000021, 0.395999968], [0.495000005, 0.593999982]], [[-0.489365757,
        -0.405999899], [-0.131288245, -0.0941248164], [-0.0679927543, 0.362023175],
        [0.294030011, 0.392039955], [0.415638268, 0.662472427]], [[-0.545419335, -0.467456281],
        [-0.1556997, -0.165942788], [-0.126343742, 0.313439488], [0.291089714, 0.388119549],
        [0.353961021, 0.713369131]]],
    'rmsprop': [[[-0.672103524, -0.599999547], [-0.100000009, 0], [-0.216226012, 0.516226768],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.672103524, -0.599999547],
        [-0.241421014, -0.399998039], [-0.216226012, 0.516226768], [0.300000012, 0.399999976],
        [0.18377617, 0.916227102]], [[-0.672103524, -0.599999547], [-0.241421014,
        -0.399998039], [-0.353295594, 0.160359591], [0.300000012, 0.399999976], [0.18377617,
        0.916227102]]],
    'rmsprop_momentum': [[[-0.672103524, -0.599999547], [-0.100000009, 0], [-0.216226012,
        0.516226768], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.858155251,
        -0.799999297], [-0.241421014, -0.399998039], [-0.374339014, 0.674340189], [0.300000012,
        0.399999976], [0.18377617, 0.916227102]], [[-0.951181114, -0.899999142], [-0.312131524,
        -0.599997044], [-0.590465128, 0.397529721], [0.300000012, 0.399999976], [0.025664255,
        1.0743407]]],
    'rmsprop_centered': [[[-0.700891018, -0.636435151], [-0.100000009, 0], [-0.233331293,
        0.533332229], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.901336491,
        -0.854652703], [-0.242856786, -0.436433196], [-0.399996936, 0.699998319], [0.300000012,
        0.399999976], [0.166671276, 0.933332562]], [[-1.00155926, -0.963761449], [-0.314285159,
        -0.654649794], [-0.627189994, 0.417858988], [0.300000012, 0.399999976],
        [6.91413879e-06, 1.09999883]]],
    'adagrad': [[[-0.399999976, -0.313137084], [-0.100000009, 0], [0.031175293, 0.278446436],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.399999976, -0.313137084],
        [-0.136514843, -0.0894427001], [0.031175293, 0.278446436], [0.300000012, 0.399999976],
        [0.446547776, 0.684515357]], [[-0.399999976, -0.313137084], [-0.136514843,
        -0.0894427001], [-0.00364023075, 0.175881937], [0.300000012, 0.399999976],
        [0.446547776, 0.684515357]]],
    'adamax': [[[-0.399999976, -0.299999982], [-0.100000009, 0], [4.47034836e-08, 0.299999952],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.447415799, -0.347415805],
        [-0.117543861, -0.0526315533], [-0.0474157631, 0.347415775], [0.300000012,
        0.399999976], [0.447368473, 0.652631521]], [[-0.477364957, -0.377364963], [-0.12862505,
        -0.0858751088], [-0.0746605247, 0.323799551], [0.300000012, 0.399999976], [0.414124936,
        0.685875058]]],
    'nadam': [[[-0.425057888, -0.334433198], [-0.100000009, 0], [-0.00627876818, 0.306278765],
        [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.433543354, -0.343554795],
        [-0.145690396, -0.12923193], [-0.0134900287, 0.313490033], [0.300000012, 0.399999976],
        [0.397833228, 0.702166796]], [[-0.442632109, -0.35332492], [-0.149526551,
        -0.140082195], [-0.0628981516, 0.199743003], [0.300000012, 0.399999976], [0.389255345,
        0.710744679]]],
    'sgd_clipnorm': [[[-0.318869144, -0.225158855], [-0.100000009, 0], [0.0905654281,
        0.212579399], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.318869144,
        -0.225158855], [-0.107811339, -0.0156226698], [0.0905654281, 0.212579399],
        [0.300000012, 0.399999976], [0.492188662, 0.619528294]], [[-0.318869144, -0.225158855],
        [-0.107811339, -0.0156226698], [0.0831233412, 0.179090023], [0.300000012, 0.399999976],
        [0.492188662, 0.619528294]]],
    'sgd_global_clipnorm': [[[-0.318869144, -0.225158855], [-0.100000009, 0], [0.0905654281,
        0.212579414], [0.300000012, 0.399999976], [0.5, 0.599999964]], [[-0.318869144,
        -0.225158855], [-0.107811347, -0.0156226708], [0.0905654281, 0.212579414],
        [0.300000012, 0.399999976], [0.492188662, 0.619528294]], [[-0.318869144, -0.225158855],
        [-0.107811347, -0.0156226708], [0.0831233412, 0.179090038], [0.300000012, 0.399999976],
        [0.492188662, 0.619528294]]],
}

SCHEDULES = {
    'exp': [0.100000001, 0.0793700516, 0.0629960522, 0.0500000007, 0.0396850258, 0.0314980261,
        0.0250000004, 0.0198425148, 0.0157490131, 0.0125000002],
    'exp_stair': [0.100000001, 0.100000001, 0.100000001, 0.0500000007, 0.0500000007,
        0.0500000007, 0.0250000004, 0.0250000004, 0.0250000004, 0.0125000002],
    'pw': [1, 1, 1, 0.5, 0.5, 0.5, 0.100000001, 0.100000001, 0.100000001, 0.100000001],
    'poly': [0.100000001, 0.0724999979, 0.049999997, 0.0324999988, 0.0199999996, 0.0125000002,
        0.00999999978, 0.00999999978, 0.00999999978, 0.00999999978],
    'poly_cycle': [0.100000001, 0.0700000003, 0.0399999991, 0.00999999978, 0.0399999991,
        0.0250000022, 0.00999999978, 0.0299999993, 0.0199999996, 0.00999999978],
    'cos': [0.100000001, 0.0914057642, 0.0689057633, 0.0410942249, 0.0185942333, 0.0100000007,
        0.0100000007, 0.0100000007, 0.0100000007, 0.0100000007],
    'cos_warm': [0, 0.0666666701, 0.13333334, 0.200000003, 0.182811528, 0.137811527,
        0.0821884498, 0.0371884666, 0.0200000014, 0.0200000014],
}

# Recorded from Keras 3: Adam(0.1, beta_2=0.5) on W0 with gradients GW scaled by 1, 0.1, 0.01
# (the second moment shrinks, so AMSGrad's max matters).
AMSGRAD = {
    'plain': [[[0.900000155, -1.9000001], [0.400000066, 2.9000001]], [[0.870227277, -1.82028449], [0.312267333, 2.82028437]], [[0.839176178, -1.74494696], [0.229030341, 2.74284577]]],
    'ams': [[[0.900000155, -1.9000001], [0.400000066, 2.9000001]], [[0.87421608, -1.84359741], [0.337688535, 2.84359741]], [[0.855178416, -1.80588818], [0.295870721, 2.80485082]]],
}


def _run_dense(make, mode, grads=None):
    """Three steps of `make()` on (w, b); returns [(w, b)] after each step."""
    grads = grads or list(zip(GW, GB))
    if mode == "graph":
        with dg.Graph().as_default():
            w, b = dg.Variable(W0), dg.Variable(B0)
            gw, gb = dg.placeholder(dg.float32, (2, 2)), dg.placeholder(dg.float32, (2,))
            opt = make()
            train = opt.apply_gradients([(gw, w), (gb, b)])
            with dg.Session() as sess:
                sess.run(dg.global_variables_initializer())
                out = []
                for a, c in grads:
                    sess.run(train, {gw: a, gb: c})
                    out.append(sess.run([w, b]))
                return out
    w, b = dg.Variable(W0), dg.Variable(B0)
    opt = make()
    step = dg.function(lambda a, c: opt.apply_gradients([(a, w), (c, b)]))
    out = []
    for a, c in grads:
        if mode == "eager":
            opt.apply_gradients([(dg.constant(a), w), (dg.constant(c), b)])
        else:
            step(dg.constant(a), dg.constant(c))
        out.append([w.numpy(), b.numpy()])
    return out


def _run_sparse(make, mode):
    """Three steps on the embedding E0 with IndexedSlices gradients."""
    return train_with_slices(make, mode, SPARSE_STEPS, E0)


MODES = ["eager", "function", "graph"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(DENSE))
def test_dense_trajectory_matches_keras(case, mode):
    got = _run_dense(OPTIMIZERS[case], mode)
    for step, (want_w, want_b) in enumerate(DENSE[case]):
        np.testing.assert_allclose(got[step][0], want_w, rtol=2e-7, atol=1e-7, err_msg=case)
        np.testing.assert_allclose(got[step][1], want_b, rtol=2e-7, atol=1e-7, err_msg=case)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(SPARSE))
def test_sparse_trajectory_matches_keras(case, mode):
    got = _run_sparse(OPTIMIZERS[case], mode)
    np.testing.assert_allclose(np.array(got), SPARSE[case], rtol=1e-6, atol=1e-7, err_msg=case)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_amsgrad_keeps_the_largest_second_moment(amsgrad):
    grads = [(g * s, np.zeros(2, np.float32)) for g, s in zip(GW, (1.0, 0.1, 0.01))]
    got = _run_dense(lambda: O.Adam(0.1, beta_2=0.5, amsgrad=amsgrad), "eager", grads)
    want = AMSGRAD["ams" if amsgrad else "plain"]
    np.testing.assert_allclose([w for w, _ in got], want, rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedules_match_keras(name):
    schedule = {
        "exp": S.ExponentialDecay(0.1, 3, 0.5),
        "exp_stair": S.ExponentialDecay(0.1, 3, 0.5, staircase=True),
        "pw": S.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1]),
        "poly": S.PolynomialDecay(0.1, 6, 0.01, power=2.0),
        "poly_cycle": S.PolynomialDecay(0.1, 3, 0.01, power=1.0, cycle=True),
        "cos": S.CosineDecay(0.1, 5, alpha=0.1),
        "cos_warm": S.CosineDecay(0.0, 5, alpha=0.1, warmup_target=0.2, warmup_steps=3),
    }[name]
    got = [schedule(dg.constant(i, dg.int64)) for i in range(10)]
    assert all(v.dtype == dg.float32 for v in got)
    np.testing.assert_allclose([float(v) for v in got], SCHEDULES[name], rtol=1e-6, atol=1e-9)


def test_schedule_arguments_are_checked():
    with pytest.raises(ValueError, match="decay_steps"):
        S.ExponentialDecay(0.1, 0, 0.5)
    with pytest.raises(ValueError, match="boundaries"):
        S.PiecewiseConstantDecay([1, 2], [0.1, 0.2])
    assert isinstance(S.CosineDecay(0.1, 5), S.LearningRateSchedule)


def test_only_one_clipping_argument():
    for kwargs in ({"clipnorm": 1.0, "clipvalue": 1.0}, {"clipnorm": 1.0, "global_clipnorm": 1.0},
                   {"clipvalue": 1.0, "global_clipnorm": 1.0}):
        with pytest.raises(ValueError, match="Only one of"):
            O.SGD(0.1, **kwargs)


def test_iterations_and_learning_rate_variables():
    opt = O.Adam(0.1)
    assert opt.iterations.dtype == dg.int64 and int(opt.iterations) == 0
    assert isinstance(opt.learning_rate, dg.Variable) and opt.learning_rate.dtype == dg.float32
    w = dg.Variable([1.0, 2.0])
    opt.apply_gradients([(dg.constant([0.5, 0.5]), w)])
    opt.apply_gradients([(dg.constant([0.5, 0.5]), w)])
    assert int(opt.iterations) == 2
    opt.learning_rate = 0.05
    assert opt.learning_rate.numpy() == np.float32(0.05)
    assert opt.variables[:2] == [opt.iterations, opt._learning_rate]
    with pytest.raises(ValueError, match="learning_rate"):
        O.SGD(1)  # Keras: an int is not a learning rate


def test_assigned_learning_rate_is_used_by_the_next_step():
    w = dg.Variable([1.0])
    opt = O.SGD(0.5)
    step = dg.function(lambda: opt.apply_gradients([(dg.constant([1.0]), w)]))
    step()
    opt.learning_rate.assign(0.25)
    step()
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.5 - 0.25])


def test_schedule_learning_rate_follows_iterations_and_is_not_settable():
    opt = O.SGD(S.PiecewiseConstantDecay([0], [1.0, 0.1]))
    w = dg.Variable([0.0])
    assert float(opt.learning_rate) == 1.0
    opt.apply_gradients([(dg.constant([1.0]), w)])
    opt.apply_gradients([(dg.constant([1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [-1.1], rtol=1e-6)
    assert float(opt.learning_rate) == pytest.approx(0.1)
    with pytest.raises(TypeError, match="not settable"):
        opt.learning_rate = 0.5


def test_slots_are_built_lazily_outside_the_function():
    w, b = dg.Variable(W0), dg.Variable(B0)
    opt = O.Adam(0.1)
    assert opt.slot_variables() == [] and not opt.built
    step = dg.function(lambda: opt.apply_gradients([(dg.ones((2, 2)), w), (dg.ones((2,)), b)]))
    step()
    slots = opt.slot_variables()
    assert [(v is w or v is b, name) for v, name, _ in slots] == [
        (True, "momentum"), (True, "velocity"), (True, "momentum"), (True, "velocity")]
    assert all(slot.created_eagerly and slot.shape == var.shape for var, _, slot in slots)
    step()
    assert int(opt.iterations) == 2 and len(opt.slot_variables()) == 4


def test_unknown_variable_and_missing_gradients():
    w, v = dg.Variable([1.0]), dg.Variable([2.0])
    opt = O.SGD(0.1)
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        opt.apply_gradients([(dg.constant([1.0]), w), (None, v)])
    np.testing.assert_allclose(v.numpy(), [2.0])
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(dg.constant([1.0]), dg.Variable([3.0]))])


def test_weight_decay_exclusion_by_name():
    w, bias = dg.Variable([1.0], name="w"), dg.Variable([1.0], name="bias")
    opt = O.AdamW(0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_names=["bias"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt.apply_gradients([(dg.constant([0.0]), w), (dg.constant([0.0]), bias)])
    np.testing.assert_allclose(w.numpy(), [1.0 - 1.0 * 0.5 * 0.1], rtol=1e-6)
    np.testing.assert_allclose(bias.numpy(), [1.0])


def test_checkpoint_protocol_and_deferred_slot_restore_reproduce_the_trajectory():
    """A new optimizer given the old one's state continues bit for bit."""
    w = dg.Variable(W0)
    first = O.Adam(0.1)
    for g in GW[:2]:
        first.apply_gradients([(dg.constant(g), w)])
    children = first.trackable_children()
    # Keras 3's checkpoint children (tf.train.Checkpoint of keras.optimizers.Adam, TF 2.21)
    assert list(children) == ["_variables", "_trainable_variables",
                              "_trainable_variables_indices", "_iterations", "_learning_rate",
                              "_momentums", "_velocities"]
    assert children["_trainable_variables"] == [w]
    assert children["_momentums"][0] is first.get_slot(w, "momentum")
    assert children["_variables"][2:] == [first.get_slot(w, "momentum"),
                                          first.get_slot(w, "velocity")]
    state = {name: slot.numpy() for _, name, slot in first.slot_variables()}
    saved_w, saved_it = w.numpy(), children["_iterations"].numpy()
    first.apply_gradients([(dg.constant(GW[2]), w)])
    want = w.numpy()

    w2 = dg.Variable(saved_w)
    second = O.Adam(0.1)
    second.iterations.assign(saved_it)
    for name, value in state.items():
        second.defer_slot_restore(w2, name, value)
    second.apply_gradients([(dg.constant(GW[2]), w2)])
    np.testing.assert_array_equal(w2.numpy(), want)


def test_nadam_tracks_u_product():
    opt = O.Nadam(0.1)
    opt.apply_gradients([(dg.constant([1.0]), dg.Variable([1.0]))])
    children = opt.trackable_children()
    assert list(children)[-1] == "_u_product" and children["_variables"][-1] is \
        children["_u_product"]  # Keras 3's layout (TF 2.21)
    assert children["_u_product"].numpy() == pytest.approx(0.468, rel=1e-6)


def test_namespaces():
    assert dg.optimizers is dg.keras.optimizers
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "Nadam", "Optimizer"):
        assert issubclass(getattr(dg.optimizers, name), dg.optimizers.Optimizer)


class KerasStyleMomentum(O.Optimizer):
    """The subclass of Keras's Optimizer docstring (build + update_step + assign)."""

    def __init__(self, learning_rate=0.1, momentum=0.9, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.momentums = [self.add_variable_from_reference(v, name="momentum")
                          for v in variables]

    def update_step(self, gradient, variable, learning_rate):
        learning_rate = dg.cast(learning_rate, variable.dtype)
        m = self.momentums[self._get_variable_index(variable)]
        self.assign(m, m * self.momentum - gradient * learning_rate)
        self.assign_add(variable, m)


@pytest.mark.parametrize("mode", MODES)
def test_keras_style_subclass_follows_the_builtin_numbers(mode):
    got = _run_dense(KerasStyleMomentum, mode)
    for step, (want_w, want_b) in enumerate(DENSE["sgd_momentum"]):
        np.testing.assert_allclose(got[step][0], want_w, rtol=2e-7, atol=1e-7)
        np.testing.assert_allclose(got[step][1], want_b, rtol=2e-7, atol=1e-7)


def test_keras_style_assign_of_indexed_slices_writes_rows_only():
    class Overwrite(O.Optimizer):
        def __init__(self):
            super().__init__(learning_rate=0.001)

        def update_step(self, gradient, variable, learning_rate):
            self.assign(variable, gradient)

    e = dg.Variable(E0)
    grad = dg.IndexedSlices(dg.constant([[7.0, 8.0]]), dg.constant([3]), dg.constant([5, 2]))
    Overwrite().apply_gradients([(grad, e)])
    want = E0.copy()
    want[3] = [7.0, 8.0]
    np.testing.assert_array_equal(e.numpy(), want)


def test_loss_scale_factor_divides_gradients():
    w = dg.Variable([1.0])
    O.SGD(0.5, loss_scale_factor=4.0).apply_gradients([(dg.constant([2.0]), w)])
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.5 * 2.0 / 4.0])
