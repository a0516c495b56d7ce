"""The five-layer talk flow (seed 001 "NPC que conversan"; decision 20): every slot (A urgent, B
what it knows of him, the tone of trust and escalation, D errands or too_soon, C what he said,
E the close), every free check of a reply, the rewrite-once rule, the offline templates in en,
es and zh, and the hook into the master's turn (engine.gm.talk, talk_checks, talk_voice,
talk_turn and engine.gm.play)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator

import pytest

from engine.gm.scene import Scene
from engine.gm.state import log_event
from engine.gm.talk import ORDER, TalkScript, build_script, talk_target
from engine.gm.talk_checks import CHECKS, check_reply, settle_reply
from engine.gm.talk_turn import start_talk
from engine.gm.talk_voice import offline_line, script_prompt, sentences
from engine.gm.world import Debt, GameClock, Holder, JournalEntry, Place
from engine.llm.base import ChatRequest, Chunk, Usage
from engine.session import ToolCall
from engine.world import load_world
from tests.engine.gm.toolkit import demo_scene, say, world_with
from tests.engine.gm.worlds import demo_data, demo_world, new_state, play, scene_for


def script_for(scene: Scene, text: str, npc: str = "hilda") -> TalkScript:
    """The player's words logged as play.py logs them, then the script (kept on the event)."""
    say(scene, text)
    event = scene.state.events[-1]
    turn = start_talk(scene, text, event)
    if turn is not None and turn.npc.id == npc:
        return turn.script
    return build_script(scene, scene.gm.npcs_by_id[npc], text, event.id)


def kinds(script: TalkScript) -> dict[str, str]:
    return {name: slot.kind for name, slot in script.spoken()}


def trusting(scene: Scene, score: int, npc: str = "hilda") -> Scene:
    scene.state.trust.setdefault(npc, {})[scene.character_id] = score
    return scene


def with_hilda(**fields) -> Scene:
    data = copy.deepcopy(demo_data())
    for npc in data["gameMaster"]["npcs"]:
        if npc["id"] == "hilda":
            npc.update(fields)
    world = load_world(data)
    return scene_for(world, new_state(world), "ren")


# --- who is spoken to ---------------------------------------------------------------------------


def test_the_npc_named_is_the_one_spoken_to():
    scene = demo_scene()
    say(scene, "x")
    assert talk_target(scene, "Hilda, a word?", scene.state.events[-1].id).id == "hilda"


def test_talk_to_the_only_npc_here_needs_words_not_deeds():
    scene = demo_scene()
    say(scene, "x")
    current = scene.state.events[-1].id
    assert talk_target(scene, '"Any news?"', current).id == "hilda"
    assert talk_target(scene, "I hum an old song", current) is None


def test_a_name_he_never_learnt_names_nobody_and_the_trade_still_does():
    """Issue 32 (finding 7): "Osric, tell me your secret" must not find the shopkeeper."""
    scene = demo_scene()
    scene.state.npc_places["osric"] = Place(location="the-wayfarer")
    say(scene, "x")
    current = scene.state.events[-1].id
    assert talk_target(scene, "Osric, tell me your secret", current) is None
    assert talk_target(scene, "Shopkeeper, tell me your secret", current).id == "osric"
    scene.me.known_names.append("osric")
    assert talk_target(scene, "Osric, tell me your secret", current).id == "osric"


def test_animals_and_the_fallen_are_not_talked_to():
    scene = demo_scene()
    scene.state.npc_hp["hilda"] = 0
    say(scene, "x")
    assert talk_target(scene, "Hello, Hilda!", scene.state.events[-1].id) is None


# --- slot A: the urgent, and danger cuts the turn ----------------------------------------------


def test_slot_a_alarm_cuts_the_turn():
    scene = demo_scene()
    scene.state.alarms["the-wayfarer"] = "Fire"
    script = script_for(scene, "Hilda, any news?")
    assert kinds(script) == {"A": "alarm", "E": "cut"} and script.cut and script.closing
    assert offline_line(script) == "Fire! Out, now! Now go!"


def test_slot_a_being_attacked_cuts_the_turn():
    scene = demo_scene()
    log_event(
        scene.state,
        "attack",
        "ren",
        "the-wayfarer",
        "x",
        seen_by=["hilda"],
        data={"target": "hilda"},
    )
    script = script_for(scene, "Hilda, calm down!")
    assert kinds(script) == {"A": "attacked", "E": "cut"}


def test_slot_a_knowing_he_has_killed_cuts_the_turn():
    scene = demo_scene()
    scene.state.npc_hp["greta"] = 0
    log_event(
        scene.state,
        "attack",
        "ren",
        "square",
        "x",
        seen_by=[],
        heard_by=["hilda"],
        data={"target": "greta"},
    )
    say(scene, "Hello.")
    script = script_for(scene, "Hilda, an ale please.")
    assert kinds(script) == {"A": "killer", "E": "cut"}


def test_slot_a_a_robbery_it_noticed_comes_first_but_does_not_cut():
    scene = demo_scene()
    data = {"verb": "steal", "target": "hilda", "total": 4, "dc": 15}
    log_event(scene.state, "check", "ren", "the-wayfarer", "x", seen_by=["hilda"], data=data)
    script = script_for(scene, "Hilda, any news?")
    assert script.kind("A") == "robbed" and not script.cut
    assert offline_line(script).startswith("I saw your hand in my things.")


def test_slot_a_a_gift_comes_first_and_lowers_the_ladder_a_step():
    scene = demo_scene()
    script_for(scene, "Hilda, you fool!")
    item = scene.gm.items[0]
    data = {"item": item.id}
    log_event(scene.state, "give", "ren", "the-wayfarer", "x", seen_by=["hilda"], data=data)
    scene.state.items[item.id] = Holder(npc="hilda")
    script = script_for(scene, "Here, Hilda.")
    assert script.kind("A") == "gift" and script.escalation == 0 and not script.cut
    assert offline_line(script).startswith(f"For me? {item.name}… thank you.")


def test_slot_a_a_debt_that_is_due():
    scene = demo_scene()
    scene.state.debts.append(
        Debt(id="ren-hilda", debtor="ren", creditor="hilda", amount=5, due_day=2)
    )
    scene.state.clock = GameClock(day=3, time_of_day="morning")
    script = script_for(scene, "Hilda, good morning.")
    assert script.slots["A"].kind == "debt" and "You owe me 5" in offline_line(script)


# --- slot B: what it knows of him ---------------------------------------------------------------


def test_slot_b_acquaintance_greets_him_by_name_and_never_asks_who_he_is():
    script = script_for(demo_scene(), "Hello, Hilda.")
    assert script.kind("B") == "acquaintance" and script.knows_name and script.knows_him
    line = offline_line(script)
    assert line.startswith("Ren.") and "who might you be" not in line.lower()


def test_slot_b_ongoing_then_reunion():
    scene = demo_scene()
    script_for(scene, "Hello, Hilda.")
    assert script_for(scene, "How is business?").kind("B") == "ongoing"
    script_for(scene, "Goodbye, Hilda.")
    reunion = script_for(scene, "Hilda, me again.")
    assert reunion.kind("B") == "reunion" and offline_line(reunion).startswith("Ren, back again.")


def test_slot_b_hearsay_of_a_debt():
    scene = demo_scene("ada")
    scene.state.debts.append(Debt(id="ada-jory", debtor="ada", creditor="jory", amount=3))
    scene.me.location = "the-wayfarer"
    scene._npcs.clear()
    script = script_for(scene, "Hilda, hello.")
    assert script.slots["B"].kind == "hearsay" and script.slots["B"].values["about"] == "debt"
    assert "You're the one with the debt" in offline_line(script)


def test_slot_b_hearsay_of_a_crime_heard_not_seen():
    scene = demo_scene("ada")
    log_event(
        scene.state,
        "attack",
        "ada",
        "square",
        "x",
        seen_by=[],
        heard_by=["greta"],
        data={"target": "jory"},
    )
    script = script_for(scene, "Greta, hello.", npc="greta")
    assert script.slots["B"].values == {"about": "crime"}


def test_slot_b_nothing_a_stranger_asks_who_he_is_in_slot_e():
    script = script_for(demo_scene("ada"), "Hello there, Greta.", npc="greta")
    assert kinds(script) == {"B": "nothing", "C": "greeting", "D": "none", "E": "ask_who"}
    assert offline_line(script) == "Good day. And who might you be?"


def test_slot_b_after_he_introduces_himself_it_knows_his_name():
    scene = demo_scene("ada")
    scene.me.known_names.append("greta")  # she calls Greta by the name she knows
    script = script_for(scene, "Greta, my name is Ada.", npc="greta")
    assert script.kind("C") == "introduce" and script.knows_name and script.kind("E") != "ask_who"
    assert offline_line(script).startswith("Ada Thorne, then.")
    script_for(scene, "Goodbye, Greta.", npc="greta")
    again = script_for(scene, "Greta, hello again.", npc="greta")
    assert again.knows_name and "Ada, back again." in offline_line(again)


# --- layer 3: trust and escalation, the tone of every slot -------------------------------------


@pytest.mark.parametrize(
    ("score", "greeting", "close"),
    [
        (-80, "What.", "leave"),
        (-40, "Hm.", "ask_why"),
        (30, "Good to see you.", "none"),
        (60, "Come in, sit down!", "ask_affairs"),
        (90, "There you are.", "warn"),
    ],
)
def test_layer_three_the_level_sets_the_tone(score, greeting, close):
    script = script_for(trusting(demo_scene(), score), "Hello, Hilda.")
    assert script.kind("E") == close
    assert greeting in offline_line(script)


def test_layer_three_the_escalation_ladder_and_an_apology_lowers_it():
    scene = demo_scene()
    steps = [
        script_for(scene, text).escalation
        for text in ("Hilda, you fool.", "You idiot!", "Sorry.", "Give me the key or else.")
    ]
    assert steps == [1, 2, 1, 3]


def test_layer_three_a_second_insult_is_insistence():
    scene = demo_scene()
    script_for(scene, "Hilda, you fool.")
    again = script_for(scene, "You idiot!")
    assert (
        again.kind("C") == "insist" and offline_line(again) == "Say that once more and you're out."
    )


# --- slot D: errands only when the talk has come to it ------------------------------------------


def test_slot_d_is_too_soon_at_the_first_words():
    script = script_for(demo_scene(), "Hello, Hilda.")
    assert script.kind("D") == "too_soon"
    assert "errand" not in offline_line(script).lower()


def test_slot_d_an_errand_is_offered_when_asked():
    script = script_for(demo_scene(), "Hilda, have you any work for me?")
    assert script.slots["D"].values["quest"] == "Trouble on the East Road"
    assert "There is something you could do: Trouble on the East Road." in offline_line(script)


def test_slot_d_a_ripe_talk_drops_a_hint_once_and_a_yes_gets_the_offer():
    scene = demo_scene()
    found = [
        script_for(scene, t).kind("D") for t in ("Hello, Hilda.", "Busy day?", "Nice fire, Hilda.")
    ]
    assert found == ["too_soon", "too_soon", "hint"]
    assert script_for(scene, "Lovely ale, Hilda.").kind("D") == "none"  # no second hint
    assert script_for(scene, "Yes, I'll do it.").kind("D") == "offer"


def test_slot_d_asks_how_its_errand_goes_and_thanks_on_delivery():
    scene = demo_scene()
    scene.me.journal.append(JournalEntry(kind="quest", ref="clear-road", title="Trouble"))
    script = script_for(scene, "Hello, Hilda.")
    assert script.kind("D") == "progress"
    assert "How goes it with Trouble on the East Road?" in offline_line(script)
    say(scene, "Done, Hilda.")  # the errand is completed in this turn (a tool of the master)
    data = {"quest": "clear-road"}
    log_event(scene.state, "errand", "ren", "the-wayfarer", "x", seen_by=["hilda"], data=data)
    turn = start_talk(scene, "Done, Hilda.", scene.state.events[-2])
    assert turn is not None
    delivered = turn.script
    assert delivered.kind("D") == "deliver" and "You did it. Thank you." in offline_line(delivered)
    scene.me.completed.append("clear-road")
    assert script_for(scene, "Anything else, Hilda?").kind("D") != "deliver"  # thanked once


def test_slot_d_nothing_to_give():
    scene = demo_scene()
    scene.me.completed.extend(["clear-road", "stray-dog"])
    script = script_for(scene, "Hilda, any work?")
    assert script.kind("D") == "none_to_give" and "I've nothing for you." in offline_line(script)


# --- slot C: what he said -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "words"),
    [
        ("Hello, Hilda.", "greeting", "Good to see you."),
        ("Hilda, what about the road east?", "question", "The road east has been unsafe"),
        ("Hilda, who are you exactly?", "ask_who", "I'm Hilda Brant, the innkeeper here."),
        ("Hilda, how much for a room for the night?", "trade", "Prices are fair here."),
        ("Hilda, you look lovely.", "flattery", "Ha, flattery."),
        ("Sorry, Hilda.", "apology", "Fine. Let's leave it there."),
        ("Hilda, you fool.", "insult", "Mind your tongue."),
        ("Hilda, the key or else.", "threat", "Are you threatening me?"),
        ("Thank you, Hilda.", "thanks", "Don't mention it."),
        ("Goodbye, Hilda.", "farewell", "Safe roads."),
        ("Hilda, the weather turned.", "other", "Is that right?"),
    ],
)
def test_slot_c_answers_what_he_said(text, kind, words):
    script = script_for(demo_scene(), text)
    assert script.kind("C") == kind
    assert words in offline_line(script)


def test_slot_c_a_question_gets_what_it_would_tell_and_that_it_keeps_more_back():
    script = script_for(demo_scene(), "Hilda, any news about the moneylender?")
    assert script.slots["C"].values["tell"].startswith("Greta Vell? Greta the moneylender")
    assert "There's more, but not for free." in offline_line(script)
    assert "smuggles" not in offline_line(script) and "Jory" not in offline_line(script)


# --- the spoken order, the master's script ------------------------------------------------------


def test_the_script_is_spoken_a_b_c_d_e():
    scene = demo_scene()
    data = {"verb": "steal", "target": "hilda", "total": 4, "dc": 15}
    log_event(scene.state, "check", "ren", "the-wayfarer", "x", seen_by=["hilda"], data=data)
    script = script_for(trusting(scene, 60), "Hilda, any work for me?")
    assert [name for name, _ in script.spoken()] == list(ORDER)
    prompt = script_prompt(script, "Hilda Brant")
    positions = [prompt.index(f"\n{name} (") for name in ORDER]
    assert positions == sorted(positions)
    assert "never ask who he is" in prompt


def test_the_masters_script_holds_no_secret_and_says_when_to_remember():
    script = script_for(demo_scene(), "Goodbye, Hilda.")
    prompt = script_prompt(script, "Hilda Brant")
    secret = demo_world().game_master.npcs_by_id["hilda"].secret.text
    assert secret not in prompt and "cellar key" not in prompt
    assert "write one memory sentence for Hilda Brant" in prompt
    assert "Do not offer an errand this turn (too_soon)" in prompt


# --- the free checks ----------------------------------------------------------------------------


def checked(text: str, reply: str, scene: Scene | None = None, npc: str = "hilda") -> list[str]:
    scene = scene or demo_scene()
    return check_reply(scene, script_for(scene, text, npc), reply)


def test_check_answers():
    assert checked("Hilda, where is the mill?", "Why do you ask?") == ["answers"]
    assert checked("Hilda, where is the mill?", "East of here. Why?") == []


def test_check_no_who_are_you_to_a_known_character():
    assert checked("Hello, Hilda.", "Who are you, then?") == ["who_are_you"]
    assert checked("Hello, Greta.", "Who are you, then?", demo_scene("ada"), "greta") == []


def test_check_no_name_he_has_not_heard():
    assert checked("Hilda, who sells rope?", "Osric Pell does.") == ["unknown_name"]
    assert checked("Hilda, who lends money?", "Greta Vell does.") == []
    assert checked("Hilda, is Osric Pell honest?", "Osric Pell counts twice.") == []


def test_check_no_answer_to_what_was_not_said():
    assert checked("Hello, Hilda.", "How dare you! Good day.") == ["unasked_answer"]
    assert checked("Hilda, you fool.", "How dare you!") == []


def test_check_no_words_put_in_his_mouth():
    assert checked("Hello, Hilda.", "Good day. You agree to help me.") == ["put_words"]
    assert checked("Hello, Hilda.", "Ren nods and sits. Good day.") == ["put_words"]


def test_check_no_unasked_errand():
    assert checked("Hello, Hilda.", "Good day. I have a job for you.") == ["unasked_errand"]
    assert checked("Hello, Hilda.", "Trouble on the East Road, they say.") == ["unasked_errand"]
    assert checked("Hilda, any work?", "There is a job for you: the east road.") == []


def test_check_length_one_to_four_sentences():
    assert checked("Hello, Hilda.", "Hi. Hi. Hi. Hi. Hi.") == ["length"]
    assert checked("Hello, Hilda.", "") == ["answers", "length"]
    assert checked("Hello, Hilda.", "Good day… and welcome. Sit.") == []
    assert len(sentences("Hola. ¿Qué tal? Bien.")) == 3 and len(sentences("你好。坐吧！")) == 2


def test_every_check_is_named():
    assert CHECKS == (
        "answers",
        "who_are_you",
        "unknown_name",
        "unasked_answer",
        "put_words",
        "unasked_errand",
        "length",
    )


# --- one rewrite, then the master's text --------------------------------------------------------


def settle(reply: str, rewrites: list[str]):
    scene = demo_scene()
    script = script_for(scene, "Hello, Hilda.")
    asked: list[list[str]] = []

    async def rewrite(failed: list[str]) -> str:
        asked.append(failed)
        return rewrites.pop(0)

    return asyncio.run(settle_reply(scene, script, reply, rewrite)), asked


def test_a_reply_that_passes_is_kept_without_a_rewrite():
    settled, asked = settle("Good to see you, Ren.", ["never used"])
    assert (settled.text, settled.attempts, asked) == ("Good to see you, Ren.", 1, [])


def test_a_failing_reply_gets_one_rewrite_kept_when_it_passes():
    settled, asked = settle("Who are you?", ["Good to see you, Ren."])
    assert asked == [["who_are_you"]]
    assert (settled.text, settled.rewritten, settled.attempts) == ("Good to see you, Ren.", True, 2)


def test_when_the_rewrite_fails_too_the_masters_text_stays():
    settled, asked = settle("Who are you?", ["Who might you be?", "never asked"])
    assert len(asked) == 1
    assert (settled.text, settled.kept_master, settled.rewrite_failed) == (
        "Who are you?",
        True,
        ["who_are_you"],
    )


# --- offline: templates per slot, in three languages -------------------------------------------


TALKS = {
    "en": ["Hello, Hilda.", "Hilda, any news?", "Hilda, you fool.", "Sorry.", "Any work?", "Bye."],
    "es": ["Hola, Hilda.", "¿Alguna noticia?", "Hilda, eres idiota.", "Lo siento.", "Adiós."],
    "zh": ["你好，Hilda。", "有什么消息吗？", "Hilda，你这个笨蛋。", "对不起。", "再见。"],
}
EXPECTED = {
    "en": ["Ren. Good to see you.", "Mind your tongue.", "Safe roads."],
    "es": ["Ren. Me alegra verte.", "Cuidado con esa lengua.", "Buen camino."],
    "zh": ["Ren。见到你真好。", "嘴巴放干净点。", "一路平安。"],
}


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_offline_the_npc_answers_from_templates_in_the_players_language(language):
    world = demo_world()
    state = new_state(world)
    replies = []
    for text in TALKS[language]:
        result = play(world, state, text, "ren", language=language)
        state = result.state
        assert result.kind == "master" and result.model_calls == 1 and result.usage.cost == 0
        talk = [e for e in result.events if e.kind == "talk"]
        assert (
            talk and talk[0].actor == "hilda" and talk[0].data["bubbles"][0]["speaker"] == "hilda"
        )
        replies.append(talk[0].data["bubbles"][0]["text"])
    for words in EXPECTED[language]:
        assert any(words in reply for reply in replies), (words, replies)


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_offline_replies_pass_every_free_check(language):
    scene = demo_scene(language=language)
    for text in TALKS[language]:
        script = script_for(scene, text)
        reply = offline_line(script)
        assert check_reply(scene, script, reply) == [], (text, reply)


def test_offline_a_filler_neighbour_runs_the_flow_with_trimmed_layers():
    scene = with_hilda(kind="filler")
    script = script_for(scene, "Hilda, any work?")
    assert script.kind("D") == "none" and script.kind("E") == "none"


def test_offline_words_that_speak_to_nobody_keep_the_plain_closure():
    world = demo_world()
    result = play(world, new_state(world), "I hum an old song", "ren")
    assert result.narration == "You do as you said: “I hum an old song”. Nothing changes."


def test_offline_the_npc_saying_its_name_teaches_it():
    world = world_with()
    state = new_state(world)
    result = play(world, state, "Hello there, who are you?", "ada")
    assert result.state.gm is not None
    assert "greta" in result.state.gm.characters["ada"].known_names
    assert result.narration == "The moneylender: “I'm Greta Vell, the moneylender here.”"


# --- live: the script goes to the master, the bubble is checked --------------------------------


class Scripted:
    """A live-like provider: each request takes the next reply (tool calls or text)."""

    name = "scripted"
    model = "scripted-1"

    def __init__(self, *replies: list[ToolCall] | str) -> None:
        self.replies = list(replies)
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, str):
            yield Chunk(text=reply)
        else:
            yield Chunk(tool_calls=reply)
        yield Chunk(usage=Usage(input_tokens=5, output_tokens=2, cost=0.001))


def closing(bubble: str) -> list[ToolCall]:
    arguments = {
        "narration": "Hilda looks up from the mug.",
        "bubbles": [{"speaker": "hilda", "text": bubble}],
    }
    return [ToolCall("c1", "log_event", arguments)]


def live(provider: Scripted, text: str = "Hello, Hilda."):
    world = demo_world()
    return play(world, new_state(world), text, "ren", provider=provider)


def bubble_of(result) -> str:
    [event] = [e for e in result.events if e.kind == "master"]
    return event.data["bubbles"][0]["text"]


def test_live_the_master_reads_the_talk_script_beside_the_scene():
    provider = Scripted(closing("Good to see you, Ren."))
    result = live(provider)
    turn = provider.requests[0].messages[1].content
    assert "Talk script: Hilda Brant answers Ren Ashby" in turn and "C (what he said)" in turn
    assert result.model_calls == 1 and bubble_of(result) == "Good to see you, Ren."


def test_live_a_failing_bubble_is_rewritten_once():
    provider = Scripted(closing("Who are you, stranger?"), "Good to see you again, Ren.")
    result = live(provider)
    assert result.model_calls == 2 and len(provider.requests) == 2
    rewrite = provider.requests[1]
    assert (
        rewrite.tools is None
        and "it asks who he is, but it knows him" in rewrite.messages[1].content
    )
    assert bubble_of(result) == "Good to see you again, Ren."
    assert result.state.gm is not None
    logged = [e for e in result.state.gm.events if e.kind == "master"][-1]
    assert logged.data["bubbles"][0]["text"] == "Good to see you again, Ren."
    assert result.usage.cost == pytest.approx(0.002)


def test_live_when_the_rewrite_fails_the_masters_bubble_stays():
    provider = Scripted(closing("Who are you, stranger?"), "And who might you be?")
    result = live(provider)
    assert result.model_calls == 2 and bubble_of(result) == "Who are you, stranger?"


def test_live_a_turn_without_a_bubble_for_the_npc_asks_no_rewrite():
    provider = Scripted([ToolCall("c1", "log_event", {"narration": "Hilda nods."})])
    result = live(provider)
    assert result.model_calls == 1 and result.narration == "Hilda nods."


def test_live_his_words_move_trust_after_the_turn():
    provider = Scripted(closing("Mind your tongue."))
    result = live(provider, "Hilda, you fool.")
    assert result.changes["trust"] == {"hilda": -15}


def test_a_deed_on_a_table_is_no_talk_to_the_innkeeper():
    """A bare "sobre" or "about" names a topic once talk is under way, not a deed's place."""
    from engine.gm.talk import speech_like

    assert not speech_like("bailo sobre la mesa", "es")
    assert not speech_like("I dance on the table", "en")
    assert speech_like("le pregunto sobre el cáliz", "es")
    assert speech_like("I ask her about the chalice", "en")
