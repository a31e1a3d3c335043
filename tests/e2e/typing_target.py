"""Another app's window for the hotkey tests: a Tk entry that prints every key it receives.

Run as ``python tests/e2e/typing_target.py TITLE``; prints ``ready <window id>`` once mapped,
then one JSON line per KeyPress (``{"keysym": ..., "state": ...}``), flushed, so the test can
see exactly which keys reached this window.
"""

import json
import sys
import tkinter


def main() -> None:
    root = tkinter.Tk()
    root.title(sys.argv[1] if len(sys.argv) > 1 else "metona-typing-target")
    root.geometry("400x80+40+400")
    entry = tkinter.Entry(root, width=40)
    entry.pack(padx=10, pady=20)

    def on_key(event: "tkinter.Event[tkinter.Entry]") -> None:
        print(json.dumps({"keysym": event.keysym, "state": event.state}), flush=True)

    entry.bind("<KeyPress>", on_key)
    entry.focus_force()
    root.update()
    print(f"ready {root.winfo_id()} {root.wm_frame()}", flush=True)
    root.mainloop()


if __name__ == "__main__":
    main()
