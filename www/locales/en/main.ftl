# Stridescope's words in English. Every message id here must also be in
# ../zh-CN/main.ftl, with the same variables (a native test checks it).
# PyTorch's own error messages are never here: they stay as PyTorch prints them.

## The page

doc-title = Stridescope: how PyTorch tensors live in memory
app-tagline = How PyTorch tensors live in memory: storages, strides, views and aliasing.
lang-label = Language
theme-light = ☀ Light theme
theme-dark = ☾ Dark theme
region-left = Script and steps
region-right = Memory
dismiss = Dismiss
close = Close

## The engine badge

engine-badge = { $kind } · { $detail }
engine-reference = reference engine
engine-browser-adapter = browser adapter
engine-gpu-ran = { $adapter } · { $gpu ->
    [one] { $gpu } op
   *[other] { $gpu } ops
} as compute shaders, { $cpu } on the CPU
engine-gpu-verified = { $adapter } · { $gpu ->
    [one] { $gpu } op
   *[other] { $gpu } ops
} as compute shaders, { $cpu } on the CPU · { $count ->
    [one] { $count } storage
   *[other] { $count } storages
} read back and verified
engine-gpu-busy = WebGPU busy; reference engine
engine-gpu-differs = WebGPU's { $id } differed from the reference; showing the CPU engine's results
engine-gpu-lost = WebGPU device lost ({ $reason })
engine-no-adapter = no WebGPU adapter

## Steps

steps-nav = Steps
steps-empty = No statements yet: type PyTorch in the editor
step-label = Step { $n } of { $count } · line { $line }
step-first = First step
step-prev = ‹ Prev
step-prev-title = Previous step (←)
step-next = Next ›
step-next-title = Next step (→)
step-last = Last step
timeline = Timeline

## The editor

editor-title = Script
editor-hint = Re-runs as you type · Ctrl+Enter runs now
editor-hint-readonly = Read-only here · step through it, hover and click cells
editor-label = PyTorch script
errors-by-line = Errors by line
error-at-line = line { $line }
error-at-column = line { $line }, col { $column }
images-title = Images
images-hint = read_image("NAME") reads these · drop an image on the script to add it
images-add = Add image…
images-picker-label = Add an image file (PNG, JPEG, GIF or WebP) for read_image
images-sample = sample
images-added = yours
images-loading = Loading { $name }…
images-undecodable = cannot be read: { $reason }
images-not-found = { $name } is not one of the sample images (samples/{ $name }: { $reason }). Add it with “Add image…” or drop it on the script.
images-not-sample = { $name } is not a sample image. Add a file of that name with “Add image…” or drop it on the script.
notice-too-long = This script is { $size } in { $lines } lines; the browser runs scripts up to { $max } and { $maxlines } lines, so the page stays responsive. Shorten it to run it (nothing you typed is lost).
notice-load-failed = The evaluator could not be loaded ({ $error }). Check the connection; the script runs again as soon as you edit it (nothing you typed is lost).
notice-loading = The evaluator is still loading; the script runs as soon as it arrives.

## Output and errors

output-empty = Nothing to show yet.
error-column = { $error } (col { $column })
created-view = a view of { $of } (no copy)
created-copy = a copy into new storage { $storage } (from { $of })
created-new = new storage { $storage }
explain-caption = Why view fails: the old layout is made of contiguous subspaces (boxes). A new dim may merge or split dims only within one subspace; the red ones would have to cross a boundary. reshape copies instead.
explain-dim = dim { $dim }
explain-dim-detail = size { $size } · stride { $stride }
explain-subspace = contiguous subspace { $k }
explain-new-dim = new dim { $dim }
explain-new-size = size { $size }
explain-new-spans = size { $size } · spans two subspaces
explain-old = old { $shape }
explain-new = new { $shape }

## Memory

mem-live = { $bytes } live in { $count } { $count ->
    [one] storage
   *[other] storages
}
mem-view = { $op }: 0 B
mem-allocated = { $op }: +{ $bytes }
mem-this-step = this step
mem-nothing = this step: 0 B
memcat-parameter = Parameters
memcat-buffer = Buffers
memcat-gradient = Gradients
memcat-optimizer-state = Optimizer state
memcat-saved = Saved for backward
memcat-variable = Variables
memcat-other = Other
memchange-what = { $what }
memchange-saved = { $node } saved { $slot } { $shape }
memchange-saved-shared = { $node } saved { $slot } { $shape }, shared with { $others }
memchange-freed-name = freed: last reference to { $name } dropped
memchange-freed-last = freed: its last reference dropped
memchange-freed-backward = freed by backward()
memchange-freed-zero-grad = freed by zero_grad()
memchange-freed-temporary = freed: a temporary of the statement
memchange-freed = freed
memchanges-title = Changes since the step before
memchanges-none = Nothing appeared or vanished in this step.
memchanges-label = Memory changes of step { $n }
memtl-title = Memory over the run
memtl-hint = live bytes after each step, stacked by kind; the lighter band above is the peak while the step ran
memtl-slider = Memory timeline
memtl-valuetext = Step { $n } of { $count }: { $live } live, peak { $peak }
memtl-peak = Peak { $bytes } · line { $line }
memtl-peak-title = The highest peak of the run, reached at line { $line }: { $source }
memtl-now = Step { $n }: { $live } live · peak { $peak }
memtl-delta = +{ $plus } · −{ $minus } since the step before
memtl-delta-plus = +{ $plus } since the step before
memtl-delta-minus = −{ $minus } since the step before
memtl-band = { $category } at step { $n }: { $bytes }
memtl-band-more = … and { $count } more
memtl-peak-hover = While step { $n } ran, memory peaked at { $peak } ({ $live } live after it)
memtl-above = Step { $n } · line { $line }
memtl-units = Units
memtl-units-decimal = MB (×1000)
memtl-units-decimal-title = Decimal units, 1 MB = 1000 kB, as the memory trackers of the course articles print them
memtl-units-binary = MiB (×1024)
memtl-units-binary-title = Binary units, 1 MiB = 1024 KiB, as nvidia-smi shows them
memtl-cuda = As on a CUDA device
memtl-cuda-note = Counted as PyTorch's CUDA caching allocator counts torch.cuda.memory_allocated(): every block rounded up to a multiple of 512 bytes. This is the allocator's rule applied to the run, not a measurement on a GPU.
memtl-cuda-run = The script ran as if on a CUDA device (cuda:0, simulated: the CPU computed the values), and torch.cuda.memory_allocated() answers with the caching allocator's rounding rules, not a measurement on a GPU.
memtl-none = No memory record for this run.
memtl-legend = Kinds of memory
memrole-badge = { $node } · { $slot }
memrole-badge-title = Autograd keeps this storage alive for backward: { $node } saved it as { $slot }. Hover to light up its views.
memrole-held = held by { $names }
summary-title = Model summary
summary-hint = each module call, exact: its parameters, its output, what it saved for backward and the peak while it ran
summary-caption = Memory by layer
summary-layer = Layer
summary-params = Parameters
summary-param-bytes = Parameter bytes
summary-output = Output shape
summary-output-bytes = Output bytes
summary-saved = Saved for backward
summary-peak = Peak while it ran
summary-total-params = Parameters: { $bytes }
summary-total-grads = Gradients: { $bytes }
summary-total-optim = Optimizer state: { $bytes }
summary-total-acts = Saved for backward (most at once): { $bytes }
summary-total-peak = Highest peak: { $bytes }
summary-totals = Totals
summary-go = Go to line { $line }

## Storages

storages-title = Storages
storages-hint = flat memory; marks show which views reach each cell
storage-header = { $id } · { $dtype } · { $bytes } · { $count } elements
storage-header-owned = { $id } · { $dtype } · { $bytes } · { $count } elements · created for { $owner }
storage-too-many = { $count } elements: too many to draw
storage-virtual = { $count } elements of { $id }, drawn as they scroll into view
jump-caption = { $name } · dim { $dim }: each step jumps { $stride } { $stride ->
    [one] element
   *[other] elements
} = { $bytes } bytes

## Tensors

views-title = Tensors
views-hint = hover a cell to see where it lives, click (or Enter) to pin it; pick a dim to see its stride
formula = { $name }[{ $index }]: { $formula }
view-meta = shape { $shape } · stride { $stride } · offset { $offset } · { $dtype }
relation-owns = owns { $storage }
relation-view = view of { $storage }
view-grad-fn-title = The autograd node that made this tensor: backward() goes back through it
view-requires-grad-title = A leaf that autograd tracks: backward() adds its gradient into .grad
# PyTorch's own spelling, as a printout shows it.
view-grad-fn = grad_fn=<{ $node }>
view-requires-grad = requires_grad=True
badge-contiguous = contiguous
badge-channels-last = channels_last
badge-not-contiguous = not contiguous
dim-chip = { $axis } { $size } · stride { $stride }
axes = rows: { $rows } · columns: { $cols }
grid-label = cells of { $name }: arrow keys move between cells, the formula above tells where each lives
view-cell = { $name }[{ $index }] = { $value }, { $storage } element { $offset }

## Sharing and export

share-group = Share and export
copy-link = Copy link
copy-link-title = Copy a link to exactly this state
embed-open = Embed…
export-svg = ⤓ SVG
export-svg-title = Download this step's diagram as SVG
export-png = ⤓ PNG
export-png-title = Download this step's diagram as PNG
share-url = Link to this state
copied-pinned = Link copied: it opens this script at this step, with the pinned cell highlighted.
copied-plain = Link copied: it opens this script at this step (click a cell to pin it into the link).
copy-refused = Copy the link below (the browser did not allow the clipboard).
export-nothing = Nothing to export yet.
export-saved = Saved { $name }
export-svg-failed = This browser could not make the SVG file.
export-png-failed = This browser could not draw the PNG.
export-png-drawing = Drawing the PNG…
export-png-encode-failed = This browser could not encode the PNG.

## The Embed dialog

embed-title = Embed this in a course page
embed-intro = Paste the snippet into any HTML page. The state lives in the link: no server, no account. See EMBEDDING.md for every option.
embed-panels = Panels
panel-editor = Script editor
panel-steps = Step controls
panel-output = Output
panel-memory = Memory
panel-storage = Storage
panel-views = Views
embed-readonly = Read-only editor
embed-autoheight = Grow with its content
embed-theme = Theme
theme-auto = auto
theme-light-name = light
theme-dark-name = dark
embed-step = Start at step
embed-height = Height (px)
embed-a11y-title = Title for screen readers
embed-snippet = Snippet
embed-copy = Copy snippet
embed-preview = Open the widget ↗
embed-copied = Snippet copied.
embed-copy-refused = Select the snippet and copy it (the browser did not allow the clipboard).
open-full = Stridescope ↗
open-full-title = Open this in the full Stridescope app

## Links that could not be opened

link-default = Showing the default scenario instead.
link-too-long = This link is too long to be a Stridescope link ({ $chars } characters; links hold at most { $max }).
link-not-a-link = This link's address does not hold a Stridescope state (it should start with #v1.).
link-future = This link was made by a newer Stridescope (link format { $version }; this page reads formats up to { $max }). Open it with the newer version.
link-unknown-version = This link's format (version { $version }) is not one Stridescope ever wrote.
link-bad-encoding = This link is damaged: its data is not valid base64url. Was it cut or changed when it was copied?
link-truncated = This link is incomplete or damaged: its data does not unpack ({ $reason }). Was it cut when it was copied?
link-oversized = This link unpacks to more than { $max } bytes, more than any Stridescope state.
link-bad-state = This link's data is not a Stridescope state ({ $reason }).
link-script-too-long = This link's script is { $bytes } bytes; Stridescope runs scripts up to { $max } bytes.
link-hides = This link hides: { $panels }.
link-readonly = Its editor is read-only.
show-all-panels = Show all panels
edit-script = Edit the script

## The lesson player

lesson-player = Lesson
lesson-loading = Loading the lesson…
lesson-progress = { $done } of { $total } questions done
lesson-question-n = Question { $n } of { $total }
lesson-answer-label = Your answer
lesson-choices-label = Choices
lesson-pick = Pick one of the choices first.
lesson-check = Check
lesson-hint = Hint
lesson-show-me = Show me
lesson-next = Next
lesson-finish = Back to the lessons
lesson-complete = Lesson complete: all { $total } questions done.
lesson-correct = Right!
lesson-wrong = Not yet.
lesson-revealed = Shown: the answer is { $answer }.
lesson-revealed-cells = Shown: the view reads storage cells { $cells }.
lesson-revealed-task = Shown: one solution is below.
lesson-solution = A solution
lesson-kind-cells = Click the storage cells this view reads, in the diagram or with the buttons below. Selected: { $count }.
lesson-cells-group = Cells of storage { $storage }
lesson-cell = cell { $offset }: { $value }
lesson-kind-task = Add your code in the editor, below the lesson's code, then Check.
lesson-concealed = shape, stride and offset hidden until you answer
lesson-ungradable = This question cannot be graded: { $error }
lesson-load-failed = This lesson could not be opened: { $reason }
lesson-not-found = there is no lesson “{ $id }” in the track
lesson-bad-id = “{ $id }” is not a lesson id
lesson-cross-origin = lessons open only from this site ({ $origin }), and { $url } is elsewhere
lesson-bad-url = “{ $url }” is not an address
lesson-fetch-failed = { $url } could not be loaded ({ $reason })
lesson-parse-error = the lesson has a mistake at line { $line }: { $error }
lesson-share = Share this lesson
lesson-share-copied = Link copied: it carries the whole lesson, no server needed.
lesson-share-url = Link to this lesson
lesson-index-title = Lessons
lesson-index-intro = Short lessons that ask before they show: predict what PyTorch does, then see the engine's answer.
lesson-index-progress = { $done } of { $total } done
lesson-index-failed = The list of lessons could not be loaded: { $reason }
lesson-open-index = Lessons
lesson-playground = Playground

## Feedback on answers (PyTorch's error text inside stays in English)

fb-empty = Type a value, such as (1, 3) or torch.float32.
fb-too-long = This value is too long ({ $chars } characters).
fb-syntax = This is not valid Python: { $message }
fb-code = `{ $code }` is code, not a value: type the value itself (a number, a tuple such as (1, 3), True/False, a dtype such as torch.float32).
fb-too-deep = This value nests tuples and lists too deeply.
fb-gave-other = You gave { $name }'s { $attribute ->
    [storage_offset] storage offset
    [numel] number of elements
    [nbytes] size in bytes
   *[other] { $attribute }
}.
fb-reversed = You gave the right values in reverse order.
fb-wrong-type = You gave a { $given }; the answer is a { $expected }, and in Python a { $given } never equals a { $expected }.
fb-not-equal = You gave { $given }; the engine says { $expected }.
fb-cells-both = The view also reads cells { $missing }, and it does not read cells { $extra }.
fb-cells-missing = The view also reads cells { $missing }.
fb-cells-extra = The view does not read cells { $extra }.
fb-cells-right = These are the cells the view reads.
fb-task-error = Your code raised, at its line { $line }: { $error }
fb-task-check = Not yet: after your code, `{ $expr }` is not True.
fb-task-raised = After your code, `{ $expr }` raised: { $error }
fb-task-copied = Your code copied: +{ $bytes } B. This task can be done without allocating.
fb-task-allocated = Your code allocated +{ $bytes } B; the task takes exactly { $expected } B.

## Cells in the drawings (screen readers); %name% and the like are filled in by the page

cell-view-template = %name%[%index%] = %value%, %storage% element %at%
cell-storage-template = %storage% element %at%: %value%, no view reaches it
cell-storage-reached-template = %storage% element %at%: %value%, reached by %names%
cell-too-many-template = %count% elements: too many to record
view-ndarray = NumPy array · strides in bytes { $strides }
error-line = { $error }  (raised at line { $line })
error-caught = Caught by the except clause on line { $line }; the script goes on there.
storage-uninitialized = Uninitialized memory (torch.empty): the values are whatever the memory held until something writes them.

## Large views and storages drawn on a canvas

canvas-view-label = { $name }: shape { $shape }, { $count } cells drawn as pixels. Move the pointer or use the arrow keys to read a cell; plus and minus zoom, 0 fits.
canvas-storage-label = { $id }: { $count } elements drawn as pixels. Move the pointer or use the arrow keys to read an element; plus and minus zoom, 0 fits.
canvas-tools = Drawing of { $name }
canvas-fit = Fit
canvas-fit-title = Show the whole drawing (key 0)
canvas-zoom-in = Zoom in
canvas-zoom-out = Zoom out
canvas-as-cells = Show as cells
canvas-as-cells-title = Draw every cell as text in a scrolling grid
canvas-as-pixels = Draw as pixels
canvas-as-pixels-title = Draw this on a zoomable canvas again
canvas-heatmap = Heatmap
canvas-heatmap-title = Colour each value by the colour scale instead of as a picture
canvas-rgb = RGB
canvas-rgb-title = Show the channels as the colours of a picture
canvas-hint = wheel or pinch to zoom · drag to pan · arrows move · 0 fits
canvas-range = colours from { $min } to { $max }
canvas-not-recorded = Values not recorded for this size ({ $count } elements): positions, offsets and aliases are still drawn.
canvas-renderer = drawn by { $renderer }
readout = { $name }[{ $index }] = { $value } · { $formula }
readout-storage = { $id } element { $offset } = { $value }
readout-not-recorded = not recorded

## The diagram export (SVG, PNG): its words
diagram-label = Stridescope diagram: { $heading }
diagram-storages = Storages
diagram-views = Views
diagram-no-tensors = No tensors yet.
diagram-elements = { $count } elements
diagram-made-by = made by { $owner }
diagram-too-large = too large to draw cell by cell
diagram-raster-picture = { $cells } cells, drawn as a raster (the picture on the page):
diagram-raster-edges = { $cells } cells: the page draws this as a raster; here, its edges:
diagram-owns = owns { $storage }
diagram-view-of = view of { $storage }
diagram-shape = shape { $shape }
diagram-stride = stride { $stride }
diagram-offset = offset { $offset }
diagram-values-not-recorded = values not recorded (too large)
