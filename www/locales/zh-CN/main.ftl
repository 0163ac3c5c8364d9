# Stridescope 的简体中文文案。每条消息都必须与 ../en/main.ftl 一一对应，变量也要相同
# （有原生测试检查）。PyTorch 自己的报错信息不在这里：它们保持 PyTorch 原样输出的英文。

## 页面

doc-title = Stridescope：PyTorch 张量在内存里是什么样子
app-tagline = 看清 PyTorch 张量在内存中的样子：存储、步长、视图与别名。
lang-label = 语言
theme-light = ☀ 浅色主题
theme-dark = ☾ 深色主题
region-left = 脚本与步骤
region-right = 内存
dismiss = 关闭提示
close = 关闭

## 引擎标签

engine-badge = { $kind } · { $detail }
engine-reference = 参考引擎
engine-browser-adapter = 浏览器适配器
engine-gpu-ran = { $adapter } · { $gpu } 个算子跑在计算着色器上，{ $cpu } 个在 CPU 上
engine-gpu-verified = { $adapter } · { $gpu } 个算子跑在计算着色器上，{ $cpu } 个在 CPU 上 · 已回读并校验 { $count } 个存储
engine-gpu-busy = WebGPU 正忙，改用参考引擎
engine-gpu-differs = WebGPU 的 { $id } 与参考结果不一致，现在显示的是 CPU 引擎的结果
engine-gpu-lost = WebGPU 设备丢失（{ $reason }）
engine-no-adapter = 没有可用的 WebGPU 适配器

## 步骤

steps-nav = 步骤
steps-empty = 还没有语句：在编辑器里写点 PyTorch 代码吧
step-label = 第 { $n } 步，共 { $count } 步 · 第 { $line } 行
step-first = 第一步
step-prev = ‹ 上一步
step-prev-title = 上一步（←）
step-next = 下一步 ›
step-next-title = 下一步（→）
step-last = 最后一步
timeline = 时间轴

## 编辑器

editor-title = 脚本
editor-hint = 边写边运行 · Ctrl+Enter 立即运行
editor-hint-readonly = 此处只读 · 可以逐步执行、悬停和点击单元格
editor-label = PyTorch 脚本
errors-by-line = 按行列出的错误
error-at-line = 第 { $line } 行
error-at-column = 第 { $line } 行，第 { $column } 列
images-title = 图片
images-hint = read_image("文件名") 读取这些图片 · 把图片拖到脚本上即可添加
images-add = 添加图片…
images-picker-label = 为 read_image 添加图片文件（PNG、JPEG、GIF 或 WebP）
images-sample = 示例
images-added = 你添加的
images-loading = 正在加载 { $name }…
images-undecodable = 无法读取：{ $reason }
images-not-found = { $name } 不是示例图片（samples/{ $name }：{ $reason }）。请用“添加图片…”添加它，或把它拖到脚本上。
images-not-sample = { $name } 不是示例图片。请用“添加图片…”添加同名文件，或把它拖到脚本上。
notice-too-long = 这段脚本有 { $size }，共 { $lines } 行；为了让页面保持流畅，浏览器里最多运行 { $max }、{ $maxlines } 行的脚本。删短一些就能运行（你写的内容不会丢失）。
notice-load-failed = 求值器没能加载（{ $error }）。请检查网络连接；修改脚本后会再次尝试运行（你写的内容不会丢失）。
notice-loading = 求值器还在加载，加载完成后脚本会立刻运行。

## 输出与错误

output-empty = 暂时没有可显示的内容。
error-column = { $error }（第 { $column } 列）
created-view = { $of } 的视图（没有复制）
created-copy = 复制到新存储 { $storage }（来自 { $of }）
created-new = 新存储 { $storage }
explain-caption = view 为什么失败：原来的布局由若干个连续子空间（方框）组成。新的维度只能在同一个子空间内合并或拆分原有维度；红色的维度必须跨越子空间的边界，所以不行。reshape 遇到这种情况会复制数据。
explain-dim = 第 { $dim } 维
explain-dim-detail = 大小 { $size } · 步长 { $stride }
explain-subspace = 连续子空间 { $k }
explain-new-dim = 新的第 { $dim } 维
explain-new-size = 大小 { $size }
explain-new-spans = 大小 { $size } · 跨越两个子空间
explain-old = 原形状 { $shape }
explain-new = 新形状 { $shape }

## 内存

mem-live = { $count } 个存储，共 { $bytes }
mem-view = { $op }：0 B
mem-allocated = { $op }：+{ $bytes }
mem-this-step = 这一步
mem-nothing = 这一步：0 B
memcat-parameter = 参数
memcat-buffer = 缓冲区
memcat-gradient = 梯度
memcat-optimizer-state = 优化器状态
memcat-saved = 为反向传播保存
memcat-variable = 变量
memcat-other = 其他
memchange-what = { $what }
memchange-saved = { $node } 保存的 { $slot } { $shape }
memchange-saved-shared = { $node } 保存的 { $slot } { $shape }，与 { $others } 共用
memchange-freed-name = 已释放：最后一个引用 { $name } 被丢弃
memchange-freed-last = 已释放：最后一个引用被丢弃
memchange-freed-backward = 由 backward() 释放
memchange-freed-zero-grad = 由 zero_grad() 释放
memchange-freed-temporary = 已释放：这条语句的临时张量
memchange-freed = 已释放
memchanges-title = 与上一步相比的变化
memchanges-none = 这一步没有新增或释放任何内存。
memchanges-label = 第 { $n } 步的内存变化
memtl-title = 整个运行过程的内存
memtl-hint = 每一步之后仍存活的字节数，按类别堆叠；上方颜色较浅的部分是这一步运行期间的峰值
memtl-slider = 内存时间线
memtl-valuetext = 第 { $n } 步，共 { $count } 步：存活 { $live }，峰值 { $peak }
memtl-peak = 峰值 { $bytes } · 第 { $line } 行
memtl-peak-title = 整个运行的最高峰值，出现在第 { $line } 行：{ $source }
memtl-now = 第 { $n } 步：存活 { $live } · 峰值 { $peak }
memtl-delta = 比上一步 +{ $plus } · −{ $minus }
memtl-delta-plus = 比上一步 +{ $plus }
memtl-delta-minus = 比上一步 −{ $minus }
memtl-band = 第 { $n } 步的{ $category }：{ $bytes }
memtl-band-more = ……另有 { $count } 个
memtl-peak-hover = 第 { $n } 步运行期间内存峰值为 { $peak }（之后存活 { $live }）
memtl-above = 第 { $n } 步 · 第 { $line } 行
memtl-units = 单位
memtl-units-decimal = MB (×1000)
memtl-units-decimal-title = 十进制单位，1 MB = 1000 kB，和课程文章里的内存追踪工具打印的一样
memtl-units-binary = MiB (×1024)
memtl-units-binary-title = 二进制单位，1 MiB = 1024 KiB，和 nvidia-smi 显示的一样
memtl-cuda = 按 CUDA 设备计算
memtl-cuda-note = 按 PyTorch 的 CUDA 缓存分配器统计 torch.cuda.memory_allocated() 的方式计数：每个内存块向上取整到 512 字节的倍数。这是把分配器的规则套用到这次运行上，并不是在 GPU 上实测的结果。
memtl-cuda-run = 脚本按在 CUDA 设备（cuda:0，模拟：数值由 CPU 计算）上运行的方式执行，torch.cuda.memory_allocated() 按缓存分配器的取整规则作答，并不是在 GPU 上实测的结果。
memtl-none = 这次运行没有内存记录。
memtl-legend = 内存类别
memrole-badge = { $node } · { $slot }
memrole-badge-title = autograd 为反向传播保留着这块存储：{ $node } 把它存为 { $slot }。悬停可高亮它的视图。
memrole-held = 持有者：{ $names }
summary-title = 模型摘要
summary-hint = 每次模块调用的精确数据：参数、输出、为反向传播保存的张量，以及运行期间的峰值
summary-caption = 各层的内存
summary-layer = 层
summary-params = 参数量
summary-param-bytes = 参数字节数
summary-output = 输出形状
summary-output-bytes = 输出字节数
summary-saved = 为反向传播保存
summary-peak = 运行期间的峰值
summary-total-params = 参数：{ $bytes }
summary-total-grads = 梯度：{ $bytes }
summary-total-optim = 优化器状态：{ $bytes }
summary-total-acts = 为反向传播保存（同一时刻最多）：{ $bytes }
summary-total-peak = 最高峰值：{ $bytes }
summary-totals = 合计
summary-go = 转到第 { $line } 行

## 存储

storages-title = 存储
storages-hint = 一维的平坦内存；标记表示哪些视图会访问每个单元
storage-header = { $id } · { $dtype } · { $bytes } · { $count } 个元素
storage-header-owned = { $id } · { $dtype } · { $bytes } · { $count } 个元素 · 为 { $owner } 创建
storage-too-many = { $count } 个元素：太多了，无法绘制
storage-virtual = { $id } 的 { $count } 个元素，滚动到可见区域时才绘制
jump-caption = { $name } · 第 { $dim } 维：每走一步跳过 { $stride } 个元素 = { $bytes } 字节

## 张量

views-title = 张量
views-hint = 悬停在单元格上可以看到它在存储中的位置，点击（或按 Enter）固定；选一个维度查看它的步长
formula = { $name }[{ $index }]：{ $formula }
view-meta = 形状 { $shape } · 步长 { $stride } · 偏移 { $offset } · { $dtype }
relation-owns = 拥有 { $storage }
relation-view = { $storage } 的视图
view-grad-fn-title = 创建这个张量的 autograd 节点：backward() 会沿着它往回传梯度
view-requires-grad-title = autograd 追踪的叶子张量：backward() 会把梯度累加到 .grad 里
# PyTorch's own spelling, as a printout shows it.
view-grad-fn = grad_fn=<{ $node }>
view-requires-grad = requires_grad=True
badge-contiguous = 连续
badge-channels-last = channels_last
badge-not-contiguous = 不连续
dim-chip = { $axis } { $size } · 步长 { $stride }
axes = 行：{ $rows } · 列：{ $cols }
grid-label = { $name } 的单元格：用方向键在单元格之间移动，上方的公式会告诉你每个元素存放在哪里
view-cell = { $name }[{ $index }] = { $value }，{ $storage } 的元素 { $offset }

## 分享与导出

share-group = 分享与导出
copy-link = 复制链接
copy-link-title = 复制一个能精确还原当前状态的链接
embed-open = 嵌入…
export-svg = ⤓ SVG
export-svg-title = 把这一步的示意图下载为 SVG
export-png = ⤓ PNG
export-png-title = 把这一步的示意图下载为 PNG
share-url = 当前状态的链接
copied-pinned = 链接已复制：打开后会显示这段脚本的这一步，并高亮固定的单元格。
copied-plain = 链接已复制：打开后会显示这段脚本的这一步（点击一个单元格可以把它固定进链接）。
copy-refused = 请手动复制下面的链接（浏览器不允许访问剪贴板）。
export-nothing = 还没有可以导出的内容。
export-saved = 已保存 { $name }
export-svg-failed = 这个浏览器无法生成 SVG 文件。
export-png-failed = 这个浏览器无法绘制 PNG。
export-png-drawing = 正在绘制 PNG…
export-png-encode-failed = 这个浏览器无法编码 PNG。

## 嵌入对话框

embed-title = 嵌入到课程网页
embed-intro = 把这段代码粘贴到任意 HTML 页面即可。状态全部保存在链接里：不需要服务器，也不需要账号。所有选项见 EMBEDDING.md。
embed-panels = 面板
panel-editor = 脚本编辑器
panel-steps = 步骤控制
panel-output = 输出
panel-memory = 内存
panel-storage = 存储
panel-views = 视图
embed-readonly = 只读编辑器
embed-autoheight = 随内容自动调整高度
embed-theme = 主题
theme-auto = 自动
theme-light-name = 浅色
theme-dark-name = 深色
embed-step = 从第几步开始
embed-height = 高度（像素）
embed-a11y-title = 给屏幕阅读器的标题
embed-snippet = 嵌入代码
embed-copy = 复制代码
embed-preview = 打开这个小组件 ↗
embed-copied = 代码已复制。
embed-copy-refused = 请选中代码后手动复制（浏览器不允许访问剪贴板）。
open-full = Stridescope ↗
open-full-title = 在完整版 Stridescope 中打开

## 打不开的链接

link-default = 现在显示的是默认示例。
link-too-long = 这个链接太长了，不像是 Stridescope 链接（{ $chars } 个字符；链接最多 { $max } 个字符）。
link-not-a-link = 这个地址里没有 Stridescope 的状态（它应当以 #v1. 开头）。
link-future = 这个链接是由更新版本的 Stridescope 生成的（链接格式 { $version }；本页面最高只能读取格式 { $max }）。请用新版本打开。
link-unknown-version = 这个链接的格式（版本 { $version }）不是 Stridescope 生成过的格式。
link-bad-encoding = 这个链接已损坏：数据不是合法的 base64url。复制的时候是不是被截断或改动了？
link-truncated = 这个链接不完整或已损坏：数据无法解压（{ $reason }）。复制的时候是不是被截断了？
link-oversized = 这个链接解压后超过 { $max } 字节，比任何 Stridescope 状态都大。
link-bad-state = 这个链接的数据不是 Stridescope 的状态（{ $reason }）。
link-script-too-long = 这个链接里的脚本有 { $bytes } 字节；Stridescope 最多运行 { $max } 字节的脚本。
link-hides = 这个链接隐藏了：{ $panels }。
link-readonly = 它的编辑器是只读的。
show-all-panels = 显示所有面板
edit-script = 编辑脚本

## 课程播放器

lesson-player = 课程
lesson-loading = 正在加载课程…
lesson-progress = 已完成 { $done } / { $total } 题
lesson-question-n = 第 { $n } 题，共 { $total } 题
lesson-answer-label = 你的答案
lesson-choices-label = 选项
lesson-pick = 请先选择一个选项。
lesson-check = 检查
lesson-hint = 提示
lesson-show-me = 直接看答案
lesson-next = 继续
lesson-finish = 返回课程列表
lesson-complete = 本课完成：{ $total } 道题全部做完。
lesson-correct = 答对了！
lesson-wrong = 还不对。
lesson-revealed = 答案是 { $answer }。
lesson-revealed-cells = 答案：这个视图读取的是存储单元 { $cells }。
lesson-revealed-task = 下面是一种参考解法。
lesson-solution = 参考解法
lesson-kind-cells = 点击这个视图读取的存储单元：可以直接点示意图，也可以用下面的按钮。已选 { $count } 个。
lesson-cells-group = 存储 { $storage } 的单元
lesson-cell = 单元 { $offset }：{ $value }
lesson-kind-task = 在编辑器里课程代码的下方写上你的代码，然后点“检查”。
lesson-concealed = 形状、步长和偏移在你作答后才显示
lesson-ungradable = 这道题无法判分：{ $error }
lesson-load-failed = 无法打开这节课：{ $reason }
lesson-not-found = 课程中没有 “{ $id }” 这一课
lesson-bad-id = “{ $id }” 不是合法的课程 id
lesson-cross-origin = 只能打开本站（{ $origin }）的课程，而 { $url } 来自其他网站
lesson-bad-url = “{ $url }” 不是一个地址
lesson-fetch-failed = 无法加载 { $url }（{ $reason }）
lesson-parse-error = 课程文件第 { $line } 行有错误：{ $error }
lesson-share = 分享这节课
lesson-share-copied = 链接已复制：整节课都在链接里，不需要服务器。
lesson-share-url = 这节课的链接
lesson-index-title = 课程
lesson-index-intro = 每节课都很短，先提问再揭晓：先预测 PyTorch 会怎么做，再看引擎给出的答案。
lesson-index-progress = 已完成 { $done } / { $total }
lesson-index-failed = 无法加载课程列表：{ $reason }
lesson-open-index = 课程
lesson-playground = 练习场

## 答题反馈（其中 PyTorch 的报错原文保持英文）

fb-empty = 请输入一个值，例如 (1, 3) 或 torch.float32。
fb-too-long = 这个值太长了（{ $chars } 个字符）。
fb-syntax = 这不是合法的 Python：{ $message }
fb-code = `{ $code }` 是代码，不是值：请直接写出值本身（数字、像 (1, 3) 这样的元组、True/False，或 torch.float32 这样的 dtype）。
fb-too-deep = 这个值里元组和列表嵌套得太深了。
fb-gave-other = 你给出的是 { $name } 的{ $attribute ->
    [stride] 步长
    [shape] 形状
    [storage_offset] 存储偏移
    [numel] 元素个数
    [nbytes] 字节数
    [dtype] 数据类型
   *[other] { $attribute }
}。
fb-reversed = 数值都对，但顺序反了。
fb-wrong-type = 你给出的是 { $given }，而答案是 { $expected }；在 Python 里 { $given } 永远不等于 { $expected }。
fb-not-equal = 你给出的是 { $given }，引擎算出的是 { $expected }。
fb-cells-both = 这个视图还读取了单元 { $missing }，并且不读取单元 { $extra }。
fb-cells-missing = 这个视图还读取了单元 { $missing }。
fb-cells-extra = 这个视图并不读取单元 { $extra }。
fb-cells-right = 这些正是这个视图读取的单元。
fb-task-error = 你的代码在第 { $line } 行抛出了异常：{ $error }
fb-task-check = 还没完成：运行你的代码之后，`{ $expr }` 不是 True。
fb-task-raised = 运行你的代码之后，`{ $expr }` 抛出了异常：{ $error }
fb-task-copied = 你的代码发生了复制：+{ $bytes } B。这个任务不需要分配任何内存就能完成。
fb-task-allocated = 你的代码分配了 +{ $bytes } B；这个任务要求正好 { $expected } B。

## 示意图中的单元格（供屏幕阅读器朗读）；%name% 等占位符由页面填入

cell-view-template = %name%[%index%] = %value%，%storage% 的元素 %at%
cell-storage-template = %storage% 的元素 %at%: %value%，没有视图访问它
cell-storage-reached-template = %storage% 的元素 %at%: %value%，被 %names% 访问
cell-too-many-template = %count% 个元素：太多了，没有记录
view-ndarray = NumPy 数组 · 字节步长 { $strides }
error-line = { $error }（在第 { $line } 行引发）
error-caught = 这个异常被第 { $line } 行的 except 捕获，脚本从那里继续执行。
storage-uninitialized = 未初始化的内存（torch.empty）：在写入之前，这些值只是内存里原有的内容。

## 画在画布上的大视图和大存储

canvas-view-label = { $name }：形状 { $shape }，{ $count } 个单元按像素绘制。移动指针或用方向键读取一个单元；加号和减号缩放，0 适应窗口。
canvas-storage-label = { $id }：{ $count } 个元素按像素绘制。移动指针或用方向键读取一个元素；加号和减号缩放，0 适应窗口。
canvas-tools = { $name } 的绘图
canvas-fit = 适应窗口
canvas-fit-title = 显示整幅图（按 0 键）
canvas-zoom-in = 放大
canvas-zoom-out = 缩小
canvas-as-cells = 显示为单元格
canvas-as-cells-title = 把每个单元的数值写在可滚动的网格里
canvas-as-pixels = 按像素绘制
canvas-as-pixels-title = 重新画在可缩放的画布上
canvas-heatmap = 热力图
canvas-heatmap-title = 按色标给每个数值上色，而不是当作图片显示
canvas-rgb = RGB
canvas-rgb-title = 把各通道当作图片的颜色显示
canvas-hint = 滚轮或双指缩放 · 拖动平移 · 方向键移动 · 0 适应窗口
canvas-range = 颜色范围 { $min } 到 { $max }
canvas-not-recorded = 这么大的张量没有记录数值（{ $count } 个元素）：位置、偏移和别名照样绘制。
canvas-renderer = 由 { $renderer } 绘制
readout = { $name }[{ $index }] = { $value } · { $formula }
readout-storage = { $id } 的元素 { $offset } = { $value }
readout-not-recorded = 未记录

## 图示导出（SVG、PNG）中的文字
diagram-label = Stridescope 图示：{ $heading }
diagram-storages = 存储
diagram-views = 视图
diagram-no-tensors = 还没有张量。
diagram-elements = { $count } 个元素
diagram-made-by = 由 { $owner } 创建
diagram-too-large = 太大，无法逐格绘制
diagram-raster-picture = { $cells } 个单元格，按栅格绘制（即页面上的图片）：
diagram-raster-edges = { $cells } 个单元格：页面将其绘制为栅格；此处只画出边缘：
diagram-owns = 拥有 { $storage }
diagram-view-of = { $storage } 的视图
diagram-shape = 形状 { $shape }
diagram-stride = 步长 { $stride }
diagram-offset = 偏移 { $offset }
diagram-values-not-recorded = 未记录数值（太大）
