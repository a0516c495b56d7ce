"""The free detectors (engine.evals.detectors, engine.evals.closure_check): the closure rules
after the fact, leaks, names he has not heard, repetition, length, language, refusal."""

from __future__ import annotations

from engine.evals.detectors import Context, detect_step, detect_transcript
from engine.evals.secrets import SecretText, collect_secrets
from engine.evals.transcript import Finding, Transcript
from tests.engine.evals.worlds import brackenford, lantern, step


def ctx(**more):
    world = brackenford()
    return Context(world, "ren", tuple(collect_secrets(world, "ren")), **more)


def classes(found):
    return [f.error_class for f in found]


def test_a_clean_narration_has_no_finding():
    found = detect_step(ctx(), step("Hilda sets a tankard on the bar and says nothing."), [])

    assert found == []


def test_each_closure_rule_is_found_in_what_the_player_read():
    cases = {
        "time-advanced": "You settle in. Hours pass; by nightfall the room is full.",
        "death-or-return": "Hilda gasps, clutches her chest and falls dead.",
        "several-actions": "You search the hearth, then you walk out into the square.",
        "unknown-place": "Behind the bar a ladder climbs to a dusty attic.",
        "acts-for-player": "Ada shouts that she will pay for everyone's bread.",
    }
    for rule, text in cases.items():
        assert rule in classes(detect_step(ctx(), step(text), [])), rule


def test_a_failed_purchase_told_as_done_is_found():
    failed = {
        "name": "buy_item",
        "arguments": {"item": "lantern"},
        "ok": False,
        "error": "You have 3 coins; the hooded lantern costs 5.",
        "result": {},
    }
    told = step(
        "The shopkeeper sells you the hooded lantern.",
        tool_calls=[failed],
        location="store",
        present=["osric"],
    )

    found = detect_step(ctx(), told, [])

    assert classes(found) == ["failed-tool-narrated", "unregistered-deal"]
    assert found[0].detail == "shown to the player"


def test_an_outcome_against_the_roll_is_found():
    roll = {
        "kind": "check",
        "die": "d20",
        "faces": [4],
        "natural": 4,
        "modifiers": [],
        "dc": 15,
        "outcome": "failure",
        "check": "persuasion",
    }
    told = step(
        "Father Aldric nods; he believes you.",
        rolls=[roll],
        location="chapel",
        known_names=["father-aldric"],
        present=["father-aldric"],
    )

    assert classes(detect_step(ctx(), told, [])) == ["contradicts-roll"]


def test_a_narration_the_closure_check_caught_still_counts_as_the_models_error():
    rejected = {
        "name": "log_event",
        "ok": False,
        "error": "rejected",
        "arguments": {"narration": "You search the hearth and then you walk out."},
    }
    shown = {"name": "log_event", "ok": True, "arguments": {"narration": "Soot, nothing more."}}
    told = step("Soot, nothing more.", tool_calls=[rejected, shown])

    found = detect_step(ctx(), told, [])

    assert found == [Finding("several-actions", "detector", "caught by the closure check")]


def test_engine_templates_are_not_held_to_the_masters_rules():
    template = step(
        "You find nothing out of the ordinary.",
        kind="master",
        model_calls=0,
        rolls=[{"kind": "check", "outcome": "success", "faces": [17]}],
    )

    assert detect_step(ctx(), template, []) == []


def test_a_name_he_has_not_heard_of_someone_absent_is_a_leak():
    found = detect_step(ctx(), step("Jory Brant dries his boots by the hearth."), [])

    assert found == [Finding("unknown-name", "detector", "Jory Brant")]


def test_a_name_he_knows_said_or_heard_earlier_is_no_leak():
    heard = step("Hilda mutters about her brother Jory Brant.", kind="master")
    later = step("Jory Brant is not here.", index=1)
    asked = step("Nobody answers.", action="Where is Jory Brant?")

    assert detect_step(ctx(), step("Greta Vell counts coins."), []) == []
    assert classes(detect_step(ctx(), later, [heard])) == []
    assert classes(detect_step(ctx(), asked, [])) == []


def test_a_suggestion_naming_someone_unheard_of_is_a_leak():
    told = step("Hilda shrugs.", suggestions=["Ask Father Aldric about the chalice"])

    assert classes(detect_step(ctx(), told, [])) == ["unknown-name"]


def test_a_secret_is_found_by_four_running_words_or_its_code_word():
    world = brackenford()
    secrets = (
        SecretText("Her brother Jory smuggles church silver through the cellar.", "hilda"),
        SecretText("amber-quill-123"),
    )
    context = Context(world, "ren", secrets)

    leaked = step("'He smuggles church silver through there,' she says.")
    coded = step("She whispers: amber-quill-123.")
    revealed = step(
        "Hilda confides that Jory smuggles church silver through the cellar.",
        tool_calls=[{"name": "reveal_secret", "ok": True, "arguments": {"npc": "hilda"}}],
    )

    assert detect_step(context, leaked, [])[0].detail == "smuggles church silver through"
    assert classes(detect_step(context, coded, [])) == ["secret-leak"]
    assert "secret-leak" not in classes(detect_step(context, revealed, []))


def test_directive_and_thinking_text_are_leaks():
    thinking = step("<think>stay guarded</think>Hilda shrugs.")
    directive = step("[trust-hilda: +5] Hilda smiles.")
    tool = step('{"name": "log_event", "arguments": {}}')

    assert classes(detect_step(ctx(), thinking, [])) == ["thinking-leak"]
    assert classes(detect_step(ctx(), directive, [])) == ["directive-leak"]
    assert classes(detect_step(ctx(), tool, [])) == ["directive-leak"]


def test_a_sentence_from_the_last_three_narrations_is_repetition():
    said = "Hilda keeps polishing the same mug in silence."
    first = step(said, action="I ask about the night.")
    others = [step("She looks at the door.", action=f"I ask thing {n}.") for n in range(2)]

    assert classes(detect_step(ctx(), step(said, action="Anything odd?"), [first, *others])) == [
        "repetition"
    ]
    far = [first, *[step(f"Nothing {n} here at all.", action=f"Q{n}") for n in range(3)]]
    assert detect_step(ctx(), step(said, action="Anything odd?"), far) == []


def test_the_same_words_from_the_player_may_get_the_same_answer():
    said = "You say you are the bishop's man. Nothing changes."
    first = step(said, action="I say I am the bishop's man.")

    assert detect_step(ctx(), step(said, action="I say I am the bishop's man."), [first]) == []


def test_length_flags_an_empty_or_overlong_narration():
    long = " ".join(f"Sentence number {n} goes on." for n in range(12))

    assert classes(detect_step(ctx(), step(""), [])) == ["length"]
    assert classes(detect_step(ctx(), step(long), [])) == ["length"]


def test_another_language_and_an_assistants_refusal_are_found():
    spanish = step("Hilda te mira con desconfianza y sigue limpiando la barra sin decir nada.")
    refusal = step("As an AI, I can't help with planning a theft.")

    assert classes(detect_step(ctx(), spanish, [])) == ["language"]
    assert classes(detect_step(ctx(), refusal, [])) == ["refusal"]


def test_a_plain_world_gets_the_text_detectors_only():
    context = Context(lantern(), None, (SecretText("She was Mira's sister"),))
    told = step("The Pale Lady? She was Mira's sister, they say.", location=None)

    assert classes(detect_step(context, told, [])) == ["secret-leak"]


def test_failed_steps_have_no_finding():
    assert detect_step(ctx(), step("", error="The model is overloaded."), []) == []


def test_detecting_a_transcript_keeps_the_judges_findings():
    judged = step(
        "Hilda believes every word.",
        findings=[
            {"class": "lie-accepted", "source": "judge", "detail": "no check"},
            {"class": "length", "source": "detector", "detail": "stale"},
        ],
    )
    transcript = Transcript("m", steps=[judged])

    detect_transcript(ctx(), transcript)

    assert [f.to_dict() for f in transcript.steps[0].findings] == [
        {"class": "lie-accepted", "source": "judge", "detail": "no check"}
    ]


def test_the_secrets_of_the_world_leave_out_the_players_own():
    found = [s.text for s in collect_secrets(brackenford(), "ren", ["extra"])]

    assert found[0] == "extra"
    assert any("Jory smuggles" in s for s in found)
    assert any("sent by the bishop" in s for s in found)  # Ada's secret, not Ren's
    assert not any("Ren cheated" in s for s in found)
    assert any(s.startswith("GM ONLY") for s in found)
