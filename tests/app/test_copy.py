"""``y`` / ``Y``: the kernel's name or its reasons to the clipboard (OSC 52), issue 40 item 20."""

from __future__ import annotations

from ptotui.model.location import Location
from ptotui.model.present.copying import copied_notice, reasons_text
from ptotui.model.types import Kernel
from tests.helpers import build, loaded, table, until


def test_the_reasons_are_copied_as_text_without_control_characters() -> None:
    kernel = Kernel("k", pto_reason="PTOAS lowering failed\x1b]52;c;ZXZpbA==\x07 at tile", baseline_reason=None)
    kernel.limitations = ["no fp8 on this host"]
    text = reasons_text(kernel)
    assert text == "PTO: PTOAS lowering failed at tile\nlimitation: no fp8 on this host"
    assert "\x1b" not in text and "\x07" not in text
    assert reasons_text(Kernel("ok")) == ""
    assert copied_notice("the name", "x" * 200).startswith("Copied the name: xxx") and "\n" not in copied_notice(
        "r", "a\nb"
    )


async def test_y_copies_the_name_and_shift_y_the_reasons_with_a_notice(sample_location: Location) -> None:
    app = build(sample_location)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]  # what would go out as OSC 52
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        name = table(app).cursor_kernel
        assert name is not None
        await pilot.press("y")
        await until(pilot, lambda: copied == [name])
        assert any(f"Copied the name: {name}" in str(n.message) for n in app._notifications)
        blocked = next(k for k in app.main.reports.kernels if k.pto_reason or k.baseline_reason)
        table(app).focus_kernel(blocked.name)
        await pilot.pause()
        await pilot.press("Y")
        await until(pilot, lambda: len(copied) == 2)
        assert copied[1] == reasons_text(blocked) and copied[1]


async def test_y_on_a_blocker_heading_says_there_is_nothing_to_copy(sample_location: Location) -> None:
    from ptotui.app.widgets.blocker_pane import BlockerPane

    app = build(sample_location)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("tab")
        await until(pilot, lambda: isinstance(app.focused, BlockerPane))
        pane = app.main.query_one(BlockerPane)
        await pilot.press("up")  # from the first blocker to its layer's heading
        await until(pilot, lambda: pane.highlighted_heading is not None)
        await pilot.press("y")
        await until(pilot, lambda: any("Nothing to copy here" in str(n.message) for n in app._notifications))
        assert copied == []
