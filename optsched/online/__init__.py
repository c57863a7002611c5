"""Machinery shared by the online problems: the adversarial worst-case search
(:mod:`optsched.online.adversary`), the certified adversary for online pricing
(:mod:`optsched.online.certified`), registered-guarantee checks (:mod:`optsched.online.guarantees`)
and the learned pricing policy (:mod:`optsched.online.learned`; training needs jax). It imports no
problem; each problem supplies an adapter."""
