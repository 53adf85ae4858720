"""The kernel and device picker: a catalog kernel or the user's own, its variant,
dtype, sizes and work-group size, and the device (found here, or shipped data)."""

from __future__ import annotations

import html
import sys
from collections.abc import Mapping

import ipywidgets as widgets

from workbench.errors import UnknownNameError, WorkbenchError
from workbench.kernels import (
    KernelSpec,
    all_kernels,
    format_group_size,
    get_kernel,
    load_user_kernel,
    parse_parameters,
    spec_from_loopy,
)
from workbench.ui.errors_view import ErrorArea
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.session import (
    DeviceChoice,
    KernelSelection,
    Session,
    available_devices,
    default_params,
    resolve_device,
)

DEFAULT_KERNEL = "matmul_tiled"
#: the error source of sizes still to be typed
SIZES = "sizes"
#: a user kernel's sizes until the user types its own multiply to about 2 to this
#: power: 1024 each explained a one-parameter kernel as nothing but its launch (a few
#: microseconds of a GPU's time), which taught a newcomer nothing about the kernel
GUESSED_POINTS_LOG2 = 24


def guessed_sizes(parameters) -> dict[str, int]:
    """A power of two per parameter, together about ``2**GUESSED_POINTS_LOG2``."""
    names = list(parameters)
    if not names:
        return {}
    each = max(GUESSED_POINTS_LOG2 // len(names), 3)
    return {name: 2 ** each for name in names}


def _is_loopy_kernel(value) -> bool:
    import loopy as lp
    return isinstance(value, (lp.LoopKernel, lp.TranslationUnit))


def notebook_namespace() -> Mapping[str, object]:
    """The notebook's variables (IPython's user namespace), else ``__main__``'s."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        shell = None
    if shell is not None:
        return shell.user_ns
    return vars(sys.modules["__main__"])


class KernelPicker(widgets.VBox):
    """Choose what the other panels look at; publishes a :class:`KernelSelection` and
    a :class:`DeviceChoice` to the session.

    ``namespace`` is where a user kernel's name is looked up (default: the notebook's
    variables); ``devices`` replaces the device list (default: shipped data, then the
    OpenCL devices of this machine).
    """

    def __init__(self, session: Session | None = None, *, kernel: str | None = None,
                 variant: str | None = None, params: str | Mapping[str, int] | None = None,
                 group_size: str | None = None, dtype: str = "float32", device=None,
                 namespace: Mapping[str, object] | None = None,
                 devices: tuple[DeviceChoice, ...] | None = None,
                 errors: ErrorArea | None = None):
        self.session = session if session is not None else Session()
        self.errors = errors if errors is not None else ErrorArea()
        self._own_errors = errors is None
        self._namespace = namespace
        self._syncing = False
        self._guessed: str | None = None   # the guessed sizes, while they are shown
        self._described = None

        # wide enough for the longest catalog name and role, "vector_scale_add
        # (measurement)" (the default 300 px cut "matmul_tiled (measuremen"), and with
        # variant and dtype within a 1280 px laptop's 846 px
        self.kernel_select = widgets.Dropdown(description="kernel", options=self._kernel_options(),
                                              layout=widgets.Layout(width="380px",
                                                                    max_width="100%"))
        self.kernel_select.add_class("wb-kernel-select")
        self.user_kernel = widgets.Text(
            description="your kernel", continuous_update=False,
            placeholder="notebook variable, or file.py:name",
            layout=widgets.Layout(width="370px"))   # the placeholder whole, and a path
        self.user_kernel.add_class("wb-user-kernel")
        self.user_kernel_button = widgets.Button(description="use", button_style="info",
                                                 layout=widgets.Layout(width="60px"))
        self.user_kernel_button.add_class("wb-user-kernel-button")
        self.variant_select = widgets.Dropdown(description="variant",
                                               layout=widgets.Layout(width="240px"))
        self.variant_select.add_class("wb-variant-select")
        self.dtype_select = widgets.Dropdown(description="dtype", options=[dtype], value=dtype,
                                             layout=widgets.Layout(width="190px"))
        self.dtype_select.add_class("wb-dtype-select")
        self.params = widgets.Text(description="sizes", continuous_update=False,
                                   placeholder="n=1024,m=512",
                                   layout=widgets.Layout(width="260px"))
        self.params.add_class("wb-params")
        self.group_size = widgets.Text(description="group size", continuous_update=False,
                                       placeholder="16x16",
                                       layout=widgets.Layout(width="190px"))
        self.group_size.add_class("wb-group-size")
        self.device_choices = devices if devices is not None else available_devices()
        self.device_select = widgets.Dropdown(
            description="device", options=[(c.label, c) for c in self.device_choices],
            # wide enough for pocl's name and platform (cut at 520 px)
            value=None, layout=widgets.Layout(width="720px"))
        self.device_select.add_class("wb-device-select")
        self.description = widgets.HTML()
        self.description.add_class("wb-kernel-description")

        # three rows, not four, where the dashboard is about 930 px wide (1366 px
        # laptops): at 768 px high the tab bar sat at the screen's bottom edge, below
        # the notebook's introduction.  At 1280 px (846 px) the sizes' row wraps
        # before "your kernel", which keeps its button: the four rows of before.
        wrap = widgets.Layout(flex_flow="row wrap")
        rows = [widgets.HBox([self.kernel_select, self.variant_select, self.dtype_select],
                             layout=wrap),
                widgets.HBox([self.params, self.group_size,
                              widgets.HBox([self.user_kernel, self.user_kernel_button])],
                             layout=wrap),
                self.device_select, self.description]
        super().__init__(rows + ([self.errors] if self._own_errors else []))
        self.add_class("wb-picker")

        guard = self.errors.guard
        self.kernel_select.observe(guard("kernel", self._on_kernel), names="value")
        for w in (self.variant_select, self.dtype_select, self.params, self.group_size):
            w.observe(guard("kernel", self._on_build_or_size), names="value")
        self.user_kernel.observe(guard("your kernel", lambda ch: self.use_kernel(ch["new"])),
                                 names="value")
        self.user_kernel_button.on_click(
            guard("your kernel", lambda _: self.use_kernel(self.user_kernel.value)))
        self.device_select.observe(guard("device", self._on_device), names="value")
        self.session.observe(guard("kernel", self._on_session_kernels), names="user_kernels")
        self.session.observe(guard("device", self._on_session_device), names="device")

        with self.errors.catching("kernel"):
            self.select(kernel or self._initial_kernel(), variant=variant, params=params,
                        group_size=group_size, dtype=dtype)
        with self.errors.catching("device"):
            choice = self.session.device or resolve_device(device, self.device_choices)
            if choice is not None and choice not in self.device_choices:
                self.device_choices += (choice,)
                self.device_select.options = [(c.label, c) for c in self.device_choices]
            self.device_select.value = choice
            if self.session.device != choice:
                self.session.choose_device(choice)
        handle_in_turn(self, self.session.lock)

    # -- the public API --------------------------------------------------------------

    def select(self, kernel: str, *, variant: str | None = None,
               params: str | Mapping[str, int] | None = None,
               group_size: str | None = None, dtype: str | None = None) -> None:
        """Choose a kernel (catalog or added user kernel) and, optionally, the rest;
        what is left out gets the kernel's defaults.  Raises on bad input."""
        spec = self._spec(kernel)
        with self.session.lock:
            self._syncing = True
            try:
                self.kernel_select.value = spec.name
                self._fill_for(spec, variant=variant, params=params,
                               group_size=group_size, dtype=dtype)
            finally:
                self._syncing = False
            self.publish()

    def publish(self) -> KernelSelection | None:
        """Validate the widgets' values and hand them to the session (raises on bad input).

        Sizes still missing (a user kernel has no default sizes) are one line in the
        picker's words, under ``sizes``, and no selection until they are typed: every
        panel used to say so itself, and in the command line's words (``--param``).

        The widgets are read and the selection set under the session's lock: of two
        edits handled in two threads, the one published last has read both."""
        with self.session.lock:
            self.errors.clear(SIZES)     # (a malformed size says so in its own words)
            spec = self._spec(self.kernel_select.value)
            params = parse_parameters(self.params.value)
            missing = [p for p in spec.parameters if p not in params]
            if missing:
                self.session.selection = None
                guess = guessed_sizes(spec.parameters)
                example = ",".join(f"{p}={params.get(p, guess[p])}" for p in spec.parameters)
                self.errors.show(f"{spec.name} needs a size for {', '.join(missing)}: type "
                                 f"them in the sizes box, e.g. {example}", SIZES)
                return None
            # a size of 0 was counted and predicted as a kernel doing nothing
            spec.check_parameter_names(params)
            selection = KernelSelection.make(
                spec, self.variant_select.value, self.dtype_select.value, params,
                self.group_size.value.strip() or None)
            self.session.selection = selection
            return selection

    def use_kernel(self, reference: str) -> KernelSpec | None:
        """A notebook variable holding a loopy kernel, ``file.py:name``, or a catalog
        name; the kernel is added to the list and selected."""
        reference = reference.strip()
        if not reference:
            return None
        if ":" in reference or reference.endswith(".py"):
            spec = load_user_kernel(reference)
        elif reference in self.session.user_kernels:   # one added before, by its name
            spec = self.session.user_kernels[reference]
        else:
            try:
                spec = get_kernel(reference)
            except UnknownNameError:
                spec = self._kernel_from_namespace(reference)
        if spec.fixed_group_size is not None:
            self.session.add_user_kernel(spec)
        self.select(spec.name)
        return spec

    def add_user_kernel(self, name: str, kernel) -> KernelSpec:
        """Add a loopy kernel object under ``name`` and select it."""
        import loopy as lp
        if isinstance(kernel, lp.LoopKernel):
            kernel = lp.make_program(kernel)
        if not isinstance(kernel, lp.TranslationUnit):
            raise WorkbenchError(f"{name} is a {type(kernel).__name__}, not a loopy kernel")
        spec = spec_from_loopy(kernel, name=name)
        self.session.add_user_kernel(spec)
        self.select(spec.name)
        return spec

    # -- helpers --------------------------------------------------------------------

    def _kernel_from_namespace(self, name: str) -> KernelSpec:
        namespace = self._namespace if self._namespace is not None else notebook_namespace()
        if name not in namespace:
            kernels = [k for k, v in namespace.items()
                       if not k.startswith("_") and _is_loopy_kernel(v)]
            catalog = [s.name for s in all_kernels()]
            raise UnknownNameError("kernel (neither in the catalog nor a notebook "
                                   "variable)", name, kernels + catalog)
        value = namespace[name]
        if not _is_loopy_kernel(value):
            raise WorkbenchError(f"notebook variable {name!r} is a {type(value).__name__}, "
                                 "not a loopy kernel")
        import loopy as lp
        if isinstance(value, lp.LoopKernel):
            value = lp.make_program(value)
        return spec_from_loopy(value, name=name)

    def _spec(self, name: str | None) -> KernelSpec:
        if not name:
            raise WorkbenchError("choose a kernel")
        if name in self.session.user_kernels:
            return self.session.user_kernels[name]
        return get_kernel(name)

    def _kernel_options(self) -> list[tuple[str, str]]:
        options = [(f"{s.name} ({s.role.value})", s.name) for s in all_kernels()]
        user = getattr(self, "session", None)
        if user is not None:
            options += [(f"{name} (your kernel)", name) for name in user.user_kernels]
        return options

    def _initial_kernel(self) -> str:
        if self.session.selection is not None:
            return self.session.selection.name
        names = [v for _, v in self.kernel_select.options]
        return DEFAULT_KERNEL if DEFAULT_KERNEL in names else names[0]

    def _fill_for(self, spec: KernelSpec, *, variant=None, params=None, group_size=None,
                  dtype=None) -> None:
        """Set the build and size widgets for ``spec`` (defaults where not given)."""
        self.variant_select.options = list(spec.variants)
        self.variant_select.value = variant or spec.default_variant
        dtypes = [d.value for d in spec.dtypes]
        self.dtype_select.options = dtypes
        self.dtype_select.value = dtype if dtype in dtypes else dtypes[0]
        guessed = params is None and not default_params(spec, self.variant_select.value)
        if params is None:
            # a user kernel has no size cases: guessed ones, said in the description,
            # rather than a message that its sizes are missing before it is even shown
            params = default_params(spec, self.variant_select.value) or \
                guessed_sizes(spec.parameters)
        self.params.value = params if isinstance(params, str) else \
            ",".join(f"{k}={v}" for k, v in params.items())
        fixed = spec.fixed_group_size is not None
        self.group_size.value = group_size or format_group_size(spec.group_sizes()[-1])
        self.group_size.disabled = fixed
        groups = ", ".join(map(format_group_size, spec.group_sizes()))
        # a user kernel's group is its own, not one the campaigns measured
        groups = (f"group size {groups} (built into the kernel)" if fixed
                  else f"group sizes measured: {groups}")
        # the guess is said until the sizes change (a reader who had typed n=1048576
        # still read "sizes guessed, n=4096: ... until you type your own")
        self._guessed = self.params.value if guessed and spec.parameters else None
        self._describe(spec, groups)

    def _describe(self, spec: KernelSpec, groups: str) -> None:
        self._described = (spec, groups)
        guess = (f" (sizes guessed, {self._guessed}: together about "
                 f"2^{GUESSED_POINTS_LOG2}, until you type your own)"
                 if self._guessed is not None else "")
        self.description.value = "<small>" + html.escape(
            f"{spec.description.rstrip('.')}. Parameters: "
            f"{', '.join(spec.parameters) or 'none'}{guess}; {groups}.",
            quote=False) + "</small>"

    # -- callbacks ------------------------------------------------------------------

    # (each under the session's lock: ``_syncing``, set by the thread that holds it,
    # then only ever means the picker's own update, never another thread's edit)

    def _on_kernel(self, change) -> None:
        with self.session.lock:
            if self._syncing or change["new"] is None:
                return
            self.select(change["new"])

    def _on_build_or_size(self, change) -> None:
        with self.session.lock:
            if self._syncing:
                return
            if (change["owner"] is self.params and self._guessed is not None
                    and change["new"] != self._guessed and self._described):
                self._guessed = None      # the user's own sizes now: no longer guessed
                self._describe(*self._described)
            self.publish()

    def _on_device(self, change) -> None:
        with self.session.lock:
            if not self._syncing and change["new"] is not None \
                    and change["new"] != self.session.device:
                self.session.choose_device(change["new"])

    def _on_session_kernels(self, change) -> None:
        with self.session.lock:
            current = self.kernel_select.value
            self._syncing = True
            try:
                self.kernel_select.options = self._kernel_options()
                if current in [v for _, v in self.kernel_select.options]:
                    self.kernel_select.value = current
            finally:
                self._syncing = False

    def _on_session_device(self, change) -> None:
        with self.session.lock:
            choice = change["new"]
            if choice is None or choice == self.device_select.value:
                return
            self._syncing = True
            try:
                if choice not in self.device_choices:
                    self.device_choices += (choice,)
                    self.device_select.options = [(c.label, c)
                                                  for c in self.device_choices]
                self.device_select.value = choice
            finally:
                self._syncing = False
