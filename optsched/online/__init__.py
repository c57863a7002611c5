"""Machinery shared by the online problems: the adversarial worst-case search
(:mod:`optsched.online.adversary`). It imports no problem; each problem supplies an adapter."""
