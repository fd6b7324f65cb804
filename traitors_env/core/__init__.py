"""What every game plugs into and every generic layer reads.

- :mod:`.game`: :class:`GameType` (a game's static facts) and :class:`Game` (its functions and capabilities);
- :mod:`.registry`: :func:`register_game`, :func:`registered_games`, :func:`load_game`;
- :mod:`.aec`: the PettingZoo AEC base every game's env subclasses, and its one wrapper layer;
- :mod:`.layout`: the declared observation layout (one declaration feeds every encoder and the docs);
- :mod:`.actions`: checks of an action index; :mod:`.agent`: the :class:`Agent` protocol and the random agent.

Game-independent and hidden-state-free; nothing here imports a game.
"""

from .game import Game, GameType, MissingCapabilityError
from .registry import UnknownGameError, load_game, register_game, registered_games

__all__ = ["Game", "GameType", "MissingCapabilityError", "UnknownGameError", "load_game", "register_game",
           "registered_games"]
