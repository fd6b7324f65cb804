"""The text view of any registered game, for language-model agents: prompts, replies and a tool-call schema.

A seat's :class:`TextView` turns each of its decisions (an observation and an action mask, nothing else) into a
:class:`TextDecision`: a prompt in words and the legal actions as a numbered list, and reads a model's reply back
into an action index. :class:`TextAgent` wraps a text policy (a function from chat messages to a reply) into an
:class:`~traitors_env.core.agent.Agent`, so a language model sits at the table through ``act(observation,
action_mask)`` like any policy.

What the model is shown, and where it comes from:

- the **system prompt** (:meth:`TextView.system_prompt`, once per game): the game's ``rules_summary``, the game's
  conventions (how seats are named) and how to reply;
- per decision (:meth:`TextView.decide`): the seat's **private knowledge** (the first decision of a game), **what
  happened since its last decision** (the difference between its previous observation and this one, in words),
  **the table now** as the seat knows it, the **decision asked**, and the **legal actions**: a line ``Legal
  actions:`` then one option a line, ``  {number}. {text}``, numbered from 1 in action-index order.

Every word comes from the seat's observation and action mask and from the game's declarations (its rules summary,
layout and action words), never from the engine's state, so the text cannot leak what the seat may not know (the
conformance test's secrets test checks the prompts as it checks the observations).

The words are the game's own where it declares a text renderer (``Game.text``: a zero-argument loader of a module,
usually ``traitors_env/games/<name>/text.py``, with any of the functions of :class:`GenericText`); a game that
declares none, or leaves a function out, gets :class:`GenericText`'s: the observation's declared blocks
(``game.layout``) with their meanings, and each action's ``game.action_text``.

A reply (:meth:`TextView.parse`) is accepted as an option's number (``"3"``), its canonical text compared without
case and whitespace (``"Plank seat 3"`` for ``"plank seat 3"``), or a tool call's JSON arguments
(``{"choice": "plank seat 3"}``, the schema of :attr:`TextDecision.tool`); anything else raises
:class:`InvalidReply`, whose message lists the legal options again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .game import Game

__all__ = ["GenericText", "InvalidReply", "TextAgent", "TextDecision", "TextOption", "TextView", "normalize",
           "text_of"]

#: The line that opens the numbered list of legal actions in every prompt and every :class:`InvalidReply`.
LEGAL_HEADER = "Legal actions:"


class InvalidReply(ValueError):
    """A reply that names no legal action of the decision; its message says why and lists the legal options as the
    numbered list of the prompt (``Legal actions:`` then ``  {number}. {text}`` a line)."""

    def __init__(self, reason: str, decision: TextDecision) -> None:
        super().__init__(f"{reason}\nReply with the number of one legal action (1–{len(decision.options)}) or its "
                         f"text.\n{options_block(decision.options)}")
        self.reason = reason


@dataclass(frozen=True)
class TextOption:
    """One legal action of a decision: ``number`` (1-based position in the numbered list), ``action`` (the env's
    action index) and ``text`` (its canonical text, unique within the decision)."""

    number: int
    action: int
    text: str


@dataclass(frozen=True)
class TextDecision:
    """One decision of a seat in words.

    Attributes:
        prompt: the user message: (the first decision of a game only: the seat's private knowledge), what happened
            since its last decision, the table now, the decision asked and the numbered legal actions.
        options: the legal actions, in the order and numbering of the prompt.
        tool: the OpenAI ``tools`` entry of this decision: one function ``act`` whose one argument ``choice`` is a
            string whose ``enum`` lists the options' canonical texts.
        first: whether this is the seat's first decision of a game (its view was reset or a new game began).
    """

    prompt: str
    options: tuple[TextOption, ...]
    tool: dict
    first: bool = False

    @property
    def actions(self) -> tuple[int, ...]:
        """The legal action indices, in the order of :attr:`options`."""
        return tuple(option.action for option in self.options)


def normalize(text: str) -> str:
    """``text`` as replies are compared: case-folded, every whitespace character removed."""
    return re.sub(r"\s+", "", str(text)).casefold()


def options_block(options: Sequence[TextOption]) -> str:
    """The numbered list: ``Legal actions:`` then ``  {number}. {text}`` per option."""
    return "\n".join([LEGAL_HEADER, *(f"  {o.number}. {o.text}" for o in options)])


def tool_schema(options: Sequence[TextOption], description: str = "") -> dict:
    """The OpenAI function-calling ``tools`` entry for ``options``: ``{"type": "function", "function": {"name":
    "act", "description": …, "parameters": {JSON schema: one required string property "choice", enum = the
    options' texts}}}``."""
    return {
        "type": "function",
        "function": {
            "name": "act",
            "description": description or "Play one of the legal actions of this decision.",
            "parameters": {
                "type": "object",
                "properties": {
                    "choice": {
                        "type": "string",
                        "enum": [o.text for o in options],
                        "description": "the legal action to play, exactly as listed",
                    },
                },
                "required": ["choice"],
                "additionalProperties": False,
            },
        },
    }


# ------------------------------------------------------------------------------------------ the generic renderer
class GenericText:
    """The text renderer of a game that declares none, and the default of every function a game's renderer leaves
    out (each takes the seat's observation, never the engine's state).

    - ``conventions(num_players) -> str``: the game's conventions for the system prompt (how seats are named);
    - ``num_players(observation) -> int | None``: the table size, where the observation shows it;
    - ``private_text(observation) -> str``: what only this seat knows (shown at its first decision of a game);
    - ``state_text(observation) -> str``: the table now, as this seat knows it;
    - ``events(previous, current) -> list[str]``: what happened between two observations of the seat (``previous``
      ``None``: since the start of the game), one sentence each;
    - ``decision_text(observation, legal) -> str``: the decision asked;
    - ``decision_kind(observation) -> str``: the kind of decision asked, in a few words (the docs show one prompt
      of each kind and side: :func:`traitors_env.core.docs.text_block`);
    - ``action_texts(observation, legal) -> list[str]``: the canonical text of each legal action (unique, not a
      bare number);
    - ``same_game(previous, current) -> bool``: whether ``current`` can follow ``previous`` in one game (``False``:
      a new game began, the view starts over).
    """

    def __init__(self, game: Game) -> None:
        self.game = game

    def _blocks(self, observation: np.ndarray):
        layout = self.game.layout
        for piece in layout.pieces:
            yield piece, np.asarray(layout.piece(np.asarray(observation), piece.name))

    @staticmethod
    def _values(values: np.ndarray) -> str:
        flat = values.ravel()
        return " ".join(f"{v:g}" for v in flat[:32]) + (" …" if flat.size > 32 else "")

    def conventions(self, num_players: int | None) -> str:
        return ("You see the game as a list of named numeric blocks (the observation), each with its meaning; "
                "blocks that are all zero are left out.")

    def num_players(self, observation: np.ndarray) -> int | None:
        return None

    def private_text(self, observation: np.ndarray) -> str:
        return ""

    def state_text(self, observation: np.ndarray) -> str:
        lines = [f"- {piece.name}: {self._values(values)} ({piece.meaning})"
                 for piece, values in self._blocks(observation) if np.any(values)]
        return "\n".join(lines) or "- (every block is zero)"

    def events(self, previous: np.ndarray | None, current: np.ndarray) -> list[str]:
        if previous is None:
            return []
        return [f"{piece.name} changed: {self._values(before)} → {self._values(after)} ({piece.meaning})"
                for (piece, before), (_, after) in zip(self._blocks(previous), self._blocks(current))
                if not np.array_equal(before, after)]

    def decision_text(self, observation: np.ndarray, legal: Sequence[int]) -> str:
        return "It is your turn: choose one of the legal actions."

    def decision_kind(self, observation: np.ndarray) -> str:
        return "decision"

    def action_texts(self, observation: np.ndarray, legal: Sequence[int]) -> list[str]:
        return [str(self.game.action_text(int(a))) for a in legal]

    def same_game(self, previous: np.ndarray, current: np.ndarray) -> bool:
        return True


class _Completed:
    """A game's text module with :class:`GenericText` behind it (each name looked up on the game's module first)."""

    def __init__(self, own: Any, fallback: GenericText) -> None:
        self._own, self._fallback = own, fallback

    def __getattr__(self, name: str):
        value = getattr(self._own, name, None)
        return getattr(self._fallback, name) if value is None else value


def text_of(game: Game):
    """``game``'s text renderer completed with :class:`GenericText` (the generic one alone where ``game.text`` is
    ``None``)."""
    fallback = GenericText(game)
    loader = getattr(game, "text", None)
    return fallback if loader is None else _Completed(loader(), fallback)


def _load(game: Game | str) -> Game:
    if isinstance(game, Game):
        return game
    from .registry import load_game

    return load_game(game)


# ------------------------------------------------------------------------------------------------- the view
def _number(digits: str) -> int:
    """``digits`` (``[+-]?\\d+``) as an int; a runaway reply of thousands of digits (past Python's int-conversion
    limit) reads as a number no list has, so it is refused as any other out-of-range number."""
    digits = digits.strip()
    return int(digits) if len(digits.lstrip("+-")) <= 9 else 10**9


class TextView:
    """One seat's text view for one game at a time; built from its observations only (never hidden state).

    Args:
        game: a :class:`Game` or a registered name (or env id).
        num_players: the table size, for the rules summary; where ``None`` it is read from the first observation
            if the game's renderer can (``num_players``), else the rules summary is the general one.

    The view remembers the seat's previous observation to tell what happened since; it starts over at
    :meth:`reset` or when the game's renderer says an observation cannot follow the previous one
    (``same_game``).
    """

    def __init__(self, game: Game | str, num_players: int | None = None) -> None:
        self.game = _load(game)
        self.num_players = None if num_players is None else self.game.check_players(num_players)
        self._read_players = num_players is None  # else read at each game's first decision, where the game can
        self.renderer = text_of(self.game)
        self._previous: np.ndarray | None = None

    def reset(self) -> None:
        """Forget the previous observation: the next decision is a first decision of a game."""
        self._previous = None

    def system_prompt(self) -> str:
        """The system message: the game, its rules summary, its conventions and how to reply."""
        t = self.game.type
        size = f" at a table of {self.num_players}" if self.num_players else ""
        return "\n\n".join(part for part in (
            f"You are playing {t.long_name}{size}, a hidden-role game of two sides: {t.side_labels[0]} and "
            f"{t.side_labels[1]}. Each message shows your decision; play to win for your side.",
            str(self.game.rules_summary(self.num_players)).strip(),
            str(self.renderer.conventions(self.num_players)).strip(),
            "HOW TO REPLY: each decision ends with a numbered list after the line 'Legal actions:'. Reply with the "
            "number of the action you choose and nothing else (for instance: 2), or with the action's text exactly "
            "as listed, or call the function `act` with that text as `choice`. Anything else is refused and you are "
            "asked again; after a few refusals a random legal action is played for you.",
        ) if part)

    def _check(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[np.ndarray, list[int]]:
        t = self.game.type
        observation = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        if observation.shape != tuple(t.observation_shape):
            raise ValueError(f"observation has shape {observation.shape}; {t.env_id} expects {t.observation_shape}")
        if mask.shape != (t.num_actions,):
            raise ValueError(f"action_mask has shape {mask.shape}; {t.env_id} expects ({t.num_actions},)")
        legal = np.flatnonzero(mask).tolist()
        if not legal:
            raise ValueError(f"action_mask allows no action (shape {mask.shape}, all zeros); a seat is only asked to "
                             "act when at least one action is legal")
        return observation, legal

    def options(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[TextOption, ...]:
        """The legal actions of a decision as numbered options (action-index order); texts made unique.

        Raises:
            ValueError: for an observation or mask of the wrong shape, or a mask that allows nothing.
        """
        observation, legal = self._check(observation, action_mask)
        texts = [" ".join(str(text).split()) for text in self.renderer.action_texts(observation, legal)]
        if len(texts) != len(legal):
            raise ValueError(f"{self.game.type.env_id}'s action_texts gave {len(texts)} texts for {len(legal)} legal "
                             "actions; expected one each")
        seen: dict[str, int] = {}
        for i, (action, text) in enumerate(zip(legal, texts)):
            if not text or text.isdigit() or normalize(text) in seen:  # a text must name one option, and no number
                texts[i] = text = f"{text or 'action'} (action {action})"
            seen[normalize(text)] = i
        return tuple(TextOption(i + 1, int(a), text) for i, (a, text) in enumerate(zip(legal, texts)))

    def decide(self, observation: np.ndarray, action_mask: np.ndarray) -> TextDecision:
        """The decision in words (see the module doc); remembers ``observation`` for the next decision's events.

        Args:
            observation: ``float32`` of the game's ``observation_shape``: the seat's observation.
            action_mask: ``int8`` ``(num_actions,)``: its legal actions (at least one).

        Raises:
            ValueError: for an observation or mask of the wrong shape, or a mask that allows nothing.
        """
        options = self.options(observation, action_mask)
        observation = np.asarray(observation, dtype=np.float32)
        legal = [o.action for o in options]
        r = self.renderer
        previous = self._previous
        if previous is not None and not r.same_game(previous, observation):
            previous = None
        first = previous is None
        if first and self._read_players:
            self.num_players = r.num_players(observation)
        parts = []
        if first:
            private = str(r.private_text(observation)).strip()
            if private:
                parts.append("Your private knowledge (only you see this):\n" + private)
        events = [str(e) for e in r.events(previous, observation)]
        heading = "So far in this game:" if first else "Since your last decision:"
        if events or not first:
            parts.append(heading + "\n" + ("\n".join(f"- {e}" for e in events) or "- nothing you could see"))
        parts.append("The table now, as you know it:\n" + str(r.state_text(observation)).strip())
        decision_text = str(r.decision_text(observation, legal)).strip()
        parts.append(decision_text + "\n" + options_block(options))
        parts.append("Reply with the number of your choice.")
        self._previous = observation.copy()
        return TextDecision("\n\n".join(parts), options, tool_schema(options, decision_text), first)

    def parse(self, reply: str | Mapping, decision: TextDecision) -> int:
        """The action index a reply names.

        Accepted: an option's number (``"3"``, also ``"3."``), its canonical text compared by :func:`normalize`
        (case and whitespace ignored), its line of the list (``"3. plank seat 3"``: number and text must agree), or a
        tool call's arguments (a JSON object string or a dict, see :meth:`parse_tool_call`). Surrounding quotes,
        backticks and a final full stop are ignored.

        Raises:
            InvalidReply: for anything else (an unknown number or text, an empty reply), listing the options.
        """
        if isinstance(reply, Mapping):
            return self.parse_tool_call(reply, decision)
        if not isinstance(reply, str):
            raise InvalidReply(f"A reply must be text; got {type(reply).__name__}.", decision)
        text = reply.strip()
        if text.startswith("{"):
            return self.parse_tool_call(text, decision)
        text = text.strip("`'\" \t\n").rstrip(".").strip()
        if not text:
            raise InvalidReply("Your reply was empty.", decision)
        if re.fullmatch(r"[+-]?\d+", text):
            return self._by_number(_number(text), decision)
        key = normalize(text)
        for option in decision.options:
            if normalize(option.text) == key:
                return option.action
        numbered = re.fullmatch(r"(\d+)[.):]\s*(.+)", text, flags=re.S)  # a line of the list: "3. plank seat 3"
        if numbered:
            action = self._by_number(_number(numbered.group(1)), decision)
            if normalize(decision.options[int(numbered.group(1)) - 1].text) == normalize(numbered.group(2)):
                return action
            raise InvalidReply(f"Your reply {reply.strip()!r} gives the number of one action and the text of "
                               "another (or of none).", decision)
        shown = reply if len(reply) <= 200 else reply[:200] + "…"
        raise InvalidReply(f"Your reply {shown!r} is neither the number nor the text of a legal action.", decision)

    def parse_tool_call(self, arguments: str | Mapping, decision: TextDecision) -> int:
        """The action index a call of the tool ``act`` names: ``arguments`` a JSON object string or a dict whose
        ``choice`` is an option's text (compared by :func:`normalize`) or number.

        Raises:
            InvalidReply: for malformed JSON, a missing ``choice``, or a choice that names no legal action.
        """
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as error:
                raise InvalidReply(f"The tool call's arguments are not valid JSON ({error.msg} at character "
                                   f"{error.pos}).", decision) from None
        if not isinstance(arguments, Mapping) or "choice" not in arguments:
            raise InvalidReply('The tool call must be act with arguments {"choice": <the text of a legal action>}.',
                               decision)
        choice = arguments["choice"]
        if isinstance(choice, (int, np.integer)) and not isinstance(choice, bool):
            return self._by_number(int(choice), decision)
        if isinstance(choice, str):
            key = normalize(choice)
            for option in decision.options:
                if normalize(option.text) == key:
                    return option.action
            if re.fullmatch(r"[+-]?\d+", choice.strip()):
                return self._by_number(_number(choice), decision)
        raise InvalidReply(f"The tool call's choice {choice!r} is not one of the legal actions.", decision)

    @staticmethod
    def _by_number(number: int, decision: TextDecision) -> int:
        if 1 <= number <= len(decision.options):
            return decision.options[number - 1].action
        raise InvalidReply(f"{number} is not the number of a legal action (1–{len(decision.options)}).", decision)


# ------------------------------------------------------------------------------------------------ the agent
#: A text policy: ``reply(messages, decision) -> str | dict`` (a dict: a tool call's arguments).
Reply = Callable[[list[dict], TextDecision], "str | Mapping"]


class TextAgent:
    """An :class:`~traitors_env.core.agent.Agent` that plays through a text policy.

    ``reply(messages, decision)`` gets the conversation so far (OpenAI chat message dicts: the system prompt, then
    each decision's prompt, the replies and the refusals) and the :class:`TextDecision` (its options and its
    ``tool``), and returns the reply: text, or a tool call's arguments (a dict or a JSON string). A reply that names
    no legal action is answered with the :class:`InvalidReply` message as a new user message and asked again, up
    to ``retries`` times; then a uniformly random legal action is played from the agent's own generator (a
    *fallback*), and the model is told which.

    The agent keeps one conversation per game (one seat): it starts a new one at the seat's first decision of a
    game (:attr:`TextDecision.first`) or at :meth:`reset`. One agent plays one seat: give each seat its own agent
    (a TextAgent asked for two seats of one game mixes their conversations).

    Args:
        game: a :class:`Game` or a registered name.
        reply: the text policy.
        num_players: the table size (else read from the observation where the game's renderer can).
        retries: further tries after an invalid reply (default 2; 0: fall back at the first invalid reply).
        seed: an int, ``None`` or a ``numpy.random.Generator``: the fallback's draws.
        memory: keep the conversation across a game's decisions (default); ``False`` sends each decision alone
            (the system prompt and that decision's prompt, which always holds the table as the seat knows it).

    Attributes:
        stats: ``decisions``, ``invalid_replies``, ``retries``, ``fallbacks`` (ints, over the agent's life).
        messages: the current game's conversation.

    Raises:
        ValueError: for ``retries`` below 0.
    """

    def __init__(self, game: Game | str, reply: Reply, *, num_players: int | None = None, retries: int = 2,
                 seed: int | np.random.Generator | None = None, memory: bool = True) -> None:
        if isinstance(retries, bool) or not isinstance(retries, (int, np.integer)) or retries < 0:
            raise ValueError(f"retries={retries!r}; expected an int >= 0")
        self.view = TextView(game, num_players)
        self.game = self.view.game
        self.reply = reply
        self.retries = int(retries)
        self.memory = memory
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.messages: list[dict] = []
        self.stats: dict = {"decisions": 0, "invalid_replies": 0, "retries": 0, "fallbacks": 0}

    def reset(self) -> None:
        """Start over: the next decision opens a new conversation as a first decision of a game."""
        self.view.reset()
        self.messages = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action: the one the text policy names, or after ``retries`` invalid replies a random legal one.

        Raises:
            ValueError: for an observation or mask of the wrong shape, or a mask that allows nothing. An exception
                of ``reply`` itself (a network error) propagates.
        """
        if not self.memory:
            self.view.reset()
        decision = self.view.decide(observation, action_mask)
        if decision.first or not self.messages:
            self.messages = [{"role": "system", "content": self.view.system_prompt()}]
        self.messages.append({"role": "user", "content": decision.prompt})
        self.stats["decisions"] += 1
        for attempt in range(self.retries + 1):
            answer = self.reply(self.messages, decision)
            self.messages.append({"role": "assistant", "content": answer if isinstance(answer, str)
                                  else json.dumps(dict(answer))})
            try:
                return self.view.parse(answer, decision)
            except InvalidReply as error:
                self.stats["invalid_replies"] += 1
                if attempt < self.retries:
                    self.stats["retries"] += 1
                    self.messages.append({"role": "user", "content": str(error)})
                    continue
                option = decision.options[int(self._rng.integers(len(decision.options)))]
                self.stats["fallbacks"] += 1
                self.messages.append({"role": "user", "content": f"{error.reason} No valid reply after "
                                      f"{self.retries + 1} tries: a random legal action was played for you: "
                                      f"{option.number}. {option.text}"})
                return option.action
        raise AssertionError("unreachable")
