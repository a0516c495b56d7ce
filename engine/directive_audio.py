"""Reading ``[audio: track action …]`` directives into cues (seed 002 "音频指令", seed 004).

Audio is its own small grammar (play with chains, stop, crossfade, volume), apart from the
variable directives of `engine.directive_bodies`.
"""

from __future__ import annotations

from engine.directive_bodies import _NUMBER, _Malformed, _number
from engine.directive_results import AudioCue
from engine.world import WorldDefinition


def _audio_cue(world: WorldDefinition, body: str, source: str) -> AudioCue:
    tokens = body.split()
    if len(tokens) < 2:
        raise _Malformed("an audio directive needs a track id and an action")
    track = _track(world, tokens[0])
    action = tokens[1].lower()
    args = tokens[2:]
    if action == "play":
        chain = None
        while args:
            arg = args.pop(0)
            if not arg.lower().startswith("chain:"):
                raise _Malformed(f"unexpected '{arg}' after play")
            name = arg[len("chain:") :] or (args.pop(0) if args else "")
            if not name:
                raise _Malformed("chain: needs a track id")
            chain = _track(world, name)
        return AudioCue(track, "play", None, chain, source)
    if action == "stop":
        if args:
            raise _Malformed(f"unexpected '{args[0]}' after stop")
        return AudioCue(track, "stop", None, None, source)
    if action in ("crossfade", "volume"):
        if len(args) > 1:
            raise _Malformed(f"unexpected '{args[1]}' after {action} {args[0]}")
        if not args:
            if action == "volume":
                raise _Malformed("volume needs a level between 0 and 1")
            return AudioCue(track, "crossfade", None, None, source)
        if not _NUMBER.fullmatch(args[0]):
            raise _Malformed(f"{action} needs a number, got '{args[0]}'")
        number = float(_number(args[0]))
        if action == "volume":
            number = min(1.0, max(0.0, number))
        elif number < 0:
            raise _Malformed("crossfade needs a duration of 0 seconds or more")
        return AudioCue(track, action, number, None, source)
    raise _Malformed(f"unknown audio action '{tokens[1]}' (play, stop, crossfade, volume)")


def _track(world: WorldDefinition, name: str) -> str:
    """Resolve a track id case-insensitively; an undeclared one is still queued as written.

    Seed 000 step 3 queues whatever matches ``[audio: ...]``; the player's audio engine ignores
    tracks the world does not have, so a typo costs a silent cue, not a lost directive.
    """
    tracks = world.tracks_by_id
    if name in tracks:
        return name
    folded = name.casefold()
    for track_id in tracks:
        if track_id.casefold() == folded:
            return track_id
    return name
