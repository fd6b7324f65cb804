"""The ``ppo.regularizer`` section of a run config (issue 54; docs/backends/equilibrium.md), checked on its own."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class RegularizerSection(BaseModel):
    """Equilibrium-seeking regularisation of the JAX backend's PPO (issue 54; docs/backends/equilibrium.md).

    ``mmd``: magnetic mirror descent (Sokota et al., ICLR 2023) in its PPO form: ``alpha · KL(π ‖ ρ)`` added to the
    loss at every learner decision, ρ the magnet; PPO's clipped ratio stays the proximal step (the paper's
    ``KL(π_t ‖ π)`` term). ``rnad``: R-NaD (Perolat et al., Science 2022, DeepNash): each learner decision's reward
    becomes ``−alpha · log(π(a|s)/π_reg(a|s))`` plus the game's, so the values carry the regularisation; the
    opponents' term of the paper is left out (the other side is frozen during a side's turn).

    The magnet / regularisation policy: ``uniform`` (uniform over the legal actions) or ``lagged``: the side's own
    policy at the start of each training turn (a generation's, a league iteration's), and again every
    ``update_every`` PPO iterations (R-NaD's steps of the fixed-point iteration; 0: at each turn's start only).
    Both are fixed by the checkpoints, so a resumed run repeats an uninterrupted one.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    kind: Literal["none", "mmd", "rnad"] = "none"
    #: MMD's α (the magnet term's weight in the loss) or R-NaD's η (the reward transform's scale)
    alpha: float = Field(default=0.05, ge=0, le=100, allow_inf_nan=False)
    magnet: Literal["uniform", "lagged"] = "lagged"
    #: PPO iterations between updates of a lagged magnet within a turn; 0: only at the turn's start
    update_every: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _check(self) -> RegularizerSection:
        if self.kind != "none" and self.alpha == 0:
            raise ValueError(f"ppo.regularizer.kind={self.kind!r} with alpha=0 regularises nothing; expected alpha > 0 "
                             "(or kind: none)")
        if self.update_every and self.magnet != "lagged":
            raise ValueError(f"ppo.regularizer.update_every={self.update_every} renews a lagged magnet, but magnet: "
                             f"{self.magnet}; expected update_every: 0 or magnet: lagged")
        if self.update_every == 1:
            # the magnet would be the rollout's own policy at every update: R-NaD's reward term is then 0, MMD's a
            # proximal term, not a magnet
            raise ValueError("ppo.regularizer.update_every=1 makes the lagged magnet the policy that played each "
                             "rollout (R-NaD's reward term always 0); expected 0 or at least 2")
        return self


def check_regularizer_backend(regularizer: RegularizerSection, backend: str) -> None:
    """``ValueError`` for a regulariser on a backend other than jax."""
    if regularizer.kind != "none" and backend != "jax":
        raise ValueError(f"ppo.regularizer.kind={regularizer.kind!r} needs backend: jax (this config: {backend!r}); "
                         "expected ppo.regularizer.kind: none")
