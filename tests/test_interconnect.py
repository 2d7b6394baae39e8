"""The DGX H100 bandwidth ladder, per direction in bytes."""
import pytest

from infra_lib import interconnect


def test_ladder_per_direction():
    hbm, nvl, pcie, nic = interconnect.dgx_h100_ladder()
    assert hbm.per_direction_Bps == 3352e9
    assert nvl.per_direction_Bps == 900e9 / 2 == interconnect.h100_nvlink_per_direction_Bps()
    assert pcie.per_direction_Bps == 128e9 / 2
    assert nic.per_direction_Bps == 400e9 / 8


def test_each_step_outward_is_slower():
    assert all(r > 1 for r in interconnect.step_ratios(interconnect.dgx_h100_ladder()))


def test_naive_comparisons_mislead():
    hbm, nvl, pcie, nic = interconnect.dgx_h100_ladder()
    assert interconnect.naive_ratio(nvl, nic) == pytest.approx(900 / 400)
    assert interconnect.true_ratio(nvl, nic) == pytest.approx(450 / 50)
    assert interconnect.naive_ratio(pcie, nic) < 1 < interconnect.true_ratio(pcie, nic)
    assert interconnect.MISREAD_BOTH == 16


def test_pcie_encoding():
    assert interconnect.pcie_gen5_x16_payload_Bps() == pytest.approx(32e9 * 16 * 128 / 130 / 8)
