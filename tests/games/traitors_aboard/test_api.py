"""PettingZoo's own conformance tests for every table size, claims on and off."""

import functools

import pytest
from pettingzoo.test import api_test, render_test, seed_test

from traitors_env import traitors_aboard_v0

TABLES = [(n, claims) for n in range(3, 9) for claims in (True, False)]


@pytest.mark.parametrize("num_players,claims", TABLES)
def test_pettingzoo_api(num_players, claims):
    api_test(traitors_aboard_v0.env(num_players=num_players, claims=claims), num_cycles=300)


@pytest.mark.parametrize("num_players,claims", TABLES)
def test_pettingzoo_seed(num_players, claims):
    seed_test(functools.partial(traitors_aboard_v0.env, num_players=num_players, claims=claims), num_cycles=300)


@pytest.mark.parametrize("num_players,claims", TABLES)
def test_pettingzoo_render(num_players, claims, capsys):
    render_test(functools.partial(traitors_aboard_v0.env, num_players=num_players, claims=claims))
