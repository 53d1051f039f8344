<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DeviceMap</name>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>MPS</source>
        <translation>MPS</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Disk</source>
        <translation>磁盘</translation>
    </message>
</context>
<context>
    <name>Format</name>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 微秒</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 十亿</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 百万</translation>
    </message>
    <message>
        <source>%1 thousand</source>
        <translation>%1 千</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
</context>
<context>
    <name>MemoryCategory</name>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Master weights</source>
        <translation>主权重</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>Gathered parameters</source>
        <translation>聚合参数</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>通信缓冲区</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>框架开销</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>临时缓冲区</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
</context>
<context>
    <name>ModelTreeSource</name>
    <message>
        <source>Cannot build %1: %2</source>
        <translation>无法构建 %1：%2</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not JSON: %2</source>
        <translation>%1 不是 JSON：%2</translation>
    </message>
    <message>
        <source>%1 is not a module tree: %2</source>
        <translation>%1 不是模块树：%2</translation>
    </message>
    <message>
        <source>%1 is not a readable checkpoint: %2</source>
        <translation>%1 不是可读取的检查点：%2</translation>
    </message>
    <message>
        <source>%1 is not a model config this view can build: %2</source>
        <translation>%1 不是此视图能够构建的模型配置：%2</translation>
    </message>
    <message>
        <source>Models (*.json *.safetensors)</source>
        <translation>模型 (*.json *.safetensors)</translation>
    </message>
</context>
<context>
    <name>OpenFile</name>
    <message>
        <source>%1: no such file</source>
        <translation>%1：文件不存在</translation>
    </message>
    <message>
        <source>%1 is not a file</source>
        <translation>%1 不是文件</translation>
    </message>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not a Fathom workspace (not an SQLite database)</source>
        <translation>%1 不是 Fathom 工作区（不是 SQLite 数据库）</translation>
    </message>
    <message>
        <source>%1 is not a trace: %2</source>
        <translation>%1 不是跟踪文件：%2</translation>
    </message>
    <message>
        <source>%1 is neither a trace (Chrome/Kineto JSON: .json, .json.gz, .pt.trace.json) nor a Fathom workspace (.sqlite)</source>
        <translation>%1 既不是跟踪文件（Chrome/Kineto JSON：.json、.json.gz、.pt.trace.json），也不是 Fathom 工作区（.sqlite）</translation>
    </message>
</context>
<context>
    <name>PlanLanePainter</name>
    <message>
        <source>pipeline bubble</source>
        <translation>流水线气泡</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>exposed: the step waits for it</source>
        <translation>暴露：该步骤需等待它</translation>
    </message>
    <message>
        <source>hidden under compute</source>
        <translation>被计算掩盖</translation>
    </message>
    <message>
        <source>planned %1
predicted %2, at ProfilerStep#%3 + %4</source>
        <translation>计划：%1
预测 %2，位于 ProfilerStep#%3 + %4</translation>
    </message>
    <message>
        <source>overhead</source>
        <translation>开销</translation>
    </message>
</context>
<context>
    <name>PlanRequest</name>
    <message>
        <source>DDP</source>
        <translation>DDP</translation>
    </message>
    <message>
        <source>ZeRO-1</source>
        <translation>ZeRO-1</translation>
    </message>
    <message>
        <source>ZeRO-2</source>
        <translation>ZeRO-2</translation>
    </message>
    <message>
        <source>ZeRO-3</source>
        <translation>ZeRO-3</translation>
    </message>
    <message>
        <source>FSDP full shard</source>
        <translation>FSDP 完全分片</translation>
    </message>
    <message>
        <source>FSDP shard grad op</source>
        <translation>FSDP 分片梯度与优化器</translation>
    </message>
    <message>
        <source>FSDP hybrid shard</source>
        <translation>FSDP 混合分片</translation>
    </message>
    <message>
        <source>FSDP hybrid shard ZeRO-2</source>
        <translation>FSDP 混合分片（ZeRO-2）</translation>
    </message>
    <message>
        <source>FSDP no shard</source>
        <translation>FSDP 不分片</translation>
    </message>
    <message>
        <source>%1 + offload</source>
        <translation>%1 + 卸载</translation>
    </message>
    <message>
        <source>FSDP full</source>
        <translation>FSDP 完全</translation>
    </message>
    <message>
        <source>FSDP grad-op</source>
        <translation>FSDP 梯度/优化器</translation>
    </message>
    <message>
        <source>FSDP hybrid</source>
        <translation>FSDP 混合</translation>
    </message>
    <message>
        <source>FSDP hybrid-2</source>
        <translation>FSDP 混合-2</translation>
    </message>
    <message>
        <source>FSDP none</source>
        <translation>FSDP 不分片</translation>
    </message>
</context>
<context>
    <name>TimelineLayout</name>
    <message>
        <source>rank %1 · %2</source>
        <translation>秩 %1 · %2</translation>
    </message>
    <message>
        <source>plan (predicted step)</source>
        <translation>计划（预测的步骤）</translation>
    </message>
</context>
<context>
    <name>WizardRun</name>
    <message>
        <source>distributed_type %1 is edited as data parallel (DDP) and saved as %2.</source>
        <translation>distributed_type %1 按数据并行（DDP）编辑，并保存为 %2。</translation>
    </message>
    <message>
        <source>Tracker %1 is not one Fathom runs (%2); `fathom train` refuses it.</source>
        <translation>Fathom 不运行跟踪器 %1（%2）；`fathom train` 会拒绝它。</translation>
    </message>
    <message>
        <source>The file names no program; the wizard proposes the built-in gpt-tiny (page Model and data).</source>
        <translation>该文件没有指定程序；向导建议使用内置的 gpt-tiny（见“模型与数据”页）。</translation>
    </message>
</context>
<context>
    <name>fathom::studio::AboutDialog</name>
    <message>
        <source>About Fathom Studio</source>
        <translation>关于 Fathom Studio</translation>
    </message>
    <message>
        <source>&lt;p&gt;A workbench for distributed PyTorch training: plan memory, communication and step time before a run, launch it, and see why it is slow.&lt;/p&gt;&lt;p&gt;Git revision %1 (%2 build)&lt;br&gt;LibTorch %3&lt;br&gt;Qt %4 (running on %5)&lt;/p&gt;&lt;p&gt;Licensed under the Apache License 2.0.&lt;/p&gt;</source>
        <translation>&lt;p&gt;分布式 PyTorch 训练工作台：在运行前规划显存、通信和单步时间，启动运行，并找出它慢的原因。&lt;/p&gt;&lt;p&gt;Git 修订版 %1（%2 构建）&lt;br&gt;LibTorch %3&lt;br&gt;Qt %4（运行于 %5）&lt;/p&gt;&lt;p&gt;依据 Apache License 2.0 授权。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>fathom::studio::DemoBuilder</name>
    <message>
        <source>Training gpt-tiny on 2 processes: step %1 of %2</source>
        <translation>正在用 2 个进程训练 gpt-tiny：第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>The demo run failed (fathom launch exited with %1).</source>
        <translation>演示运行失败（fathom launch 退出码为 %1）。</translation>
    </message>
    <message>
        <source>Preparing %1</source>
        <translation>正在准备 %1</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>无法创建文件夹 %1。</translation>
    </message>
    <message>
        <source>Cannot write the demo configuration.</source>
        <translation>无法写入演示配置。</translation>
    </message>
    <message>
        <source>Launching gpt-tiny on 2 processes</source>
        <translation>正在用 2 个进程启动 gpt-tiny</translation>
    </message>
    <message>
        <source>Cannot launch the demo run.</source>
        <translation>无法启动演示运行。</translation>
    </message>
    <message>
        <source>Comparing strategies for Llama 2 7B on 8 × H100</source>
        <translation>正在比较 Llama 2 7B 在 8 × H100 上的各策略</translation>
    </message>
    <message>
        <source>Cannot save the demo comparison.</source>
        <translation>无法保存演示比较。</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
</context>
<context>
    <name>fathom::studio::EnvironmentController</name>
    <message>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message numerus="yes">
        <source>%n × %1</source>
        <translation>
            <numerusform>%n × %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>LibTorch %1 · %2 · %n CPU core(s)</source>
        <translation>
            <numerusform>LibTorch %1 · %2 · %n 个 CPU 核心</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::studio::HomePage</name>
    <message>
        <source>Welcome to Fathom Studio</source>
        <translation>欢迎使用 Fathom Studio</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Open Workspace…</source>
        <translation>打开工作区…</translation>
    </message>
    <message>
        <source>A fathom.sqlite with runs and saved plans</source>
        <translation>包含运行记录和已保存方案的 fathom.sqlite</translation>
    </message>
    <message>
        <source>New Workspace…</source>
        <translation>新建工作区…</translation>
    </message>
    <message>
        <source>An empty workspace for new runs</source>
        <translation>用于新运行的空工作区</translation>
    </message>
    <message>
        <source>Open the Demo Workspace</source>
        <translation>打开演示工作区</translation>
    </message>
    <message>
        <source>A finished demo run and a saved plan comparison; built on first use (a short real training run)</source>
        <translation>一次已完成的演示运行和一份已保存的方案比较；首次使用时生成（一次简短的真实训练）</translation>
    </message>
    <message>
        <source>New Run Configuration…</source>
        <translation>新建运行配置…</translation>
    </message>
    <message>
        <source>The wizard, with the planner beside every page</source>
        <translation>向导，每一页旁边都有规划器</translation>
    </message>
    <message>
        <source>What-if Planner</source>
        <translation>假设分析规划器</translation>
    </message>
    <message>
        <source>Memory, communication and step time of every strategy</source>
        <translation>每种策略的显存、通信和单步时间</translation>
    </message>
    <message>
        <source>Recent workspaces</source>
        <translation>最近的工作区</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>None yet</source>
        <translation>暂无</translation>
    </message>
    <message>
        <source>No workspace is open. Open one, create one, or start with the demo.</source>
        <translation>尚未打开工作区。请打开或新建一个，或从演示开始。</translation>
    </message>
    <message numerus="yes">
        <source>Workspace %1: %n run(s). Double-click a run in the Runs panel to open it.</source>
        <translation>
            <numerusform>工作区 %1：%n 次运行。在“运行”面板中双击某个运行即可打开。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::studio::LaunchController</name>
    <message>
        <source>Could not start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <source>A launch is already running.</source>
        <translation>已有一个启动正在运行。</translation>
    </message>
    <message>
        <source>The configuration names no program to run.</source>
        <translation>该配置没有指定要运行的程序。</translation>
    </message>
    <message>
        <source>The fathom command was not found next to the Studio or in PATH.</source>
        <translation>在 Studio 旁边和 PATH 中都找不到 fathom 命令。</translation>
    </message>
    <message>
        <source>Submitted SLURM job %1; waiting for it to start.</source>
        <translation>已提交 SLURM 作业 %1；等待其启动。</translation>
    </message>
    <message>
        <source>SLURM job %1: %2</source>
        <translation>SLURM 作业 %1：%2</translation>
    </message>
</context>
<context>
    <name>fathom::studio::MainWindow</name>
    <message>
        <source>Fathom Studio</source>
        <translation>Fathom Studio</translation>
    </message>
    <message>
        <source>Home</source>
        <translation>主页</translation>
    </message>
    <message>
        <source>No workspace</source>
        <translation>无工作区</translation>
    </message>
    <message>
        <source>Probing environment…</source>
        <translation>正在探测环境…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>&amp;Open Workspace…</source>
        <translation>打开工作区(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;New Workspace…</source>
        <translation>新建工作区(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Close Workspace</source>
        <translation>关闭工作区(&amp;C)</translation>
    </message>
    <message>
        <source>Open &amp;Demo Workspace</source>
        <translation>打开演示工作区(&amp;D)</translation>
    </message>
    <message>
        <source>New Run &amp;Configuration…</source>
        <translation>新建运行配置(&amp;C)…</translation>
    </message>
    <message>
        <source>Open Con&amp;figuration…</source>
        <translation>打开配置(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;What-if Planner</source>
        <translation>假设分析规划器(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Filter Runs</source>
        <translation>筛选运行(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Stop Launch</source>
        <translation>停止启动(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>Close &amp;Tab</source>
        <translation>关闭标签页(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Open Configuration</source>
        <translation>打开配置</translation>
    </message>
    <message>
        <source>Configuration (*.yaml *.yml *.json)</source>
        <translation>配置文件 (*.yaml *.yml *.json)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Fathom Studio</source>
        <translation>关于 Fathom Studio(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Double-click a comparison to open it in the what-if planner</source>
        <translation>双击某个比较即可在假设分析规划器中打开</translation>
    </message>
    <message>
        <source>Saved plans</source>
        <translation>已保存的方案</translation>
    </message>
    <message>
        <source>This saved plan is not a what-if comparison.</source>
        <translation>该已保存方案不是假设分析比较。</translation>
    </message>
    <message>
        <source>Saved Plan</source>
        <translation>已保存的方案</translation>
    </message>
    <message>
        <source>This comparison cannot be opened.</source>
        <translation>无法打开该比较。</translation>
    </message>
    <message>
        <source>Properties</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Open the what-if planner (Ctrl+Shift+P) or a saved comparison: the plan it highlights is summarised here.</source>
        <translation>打开假设分析规划器（Ctrl+Shift+P）或已保存的比较：其中选中的方案会在此处汇总。</translation>
    </message>
    <message>
        <source>Planner</source>
        <translation>规划器</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>%1 – Fathom Studio</source>
        <translation>%1 – Fathom Studio</translation>
    </message>
    <message>
        <source>No runs yet. Configure one (Ctrl+Shift+N) and launch it.</source>
        <translation>还没有运行。请配置一个（Ctrl+Shift+N）并启动。</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>Open Workspace</source>
        <translation>打开工作区</translation>
    </message>
    <message>
        <source>%1 could not be opened.</source>
        <translation>无法打开 %1。</translation>
    </message>
    <message>
        <source>No workspace open.</source>
        <translation>未打开工作区。</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>Comparison saved as plan %1.</source>
        <translation>比较已保存为方案 %1。</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 失败：%2</translation>
    </message>
    <message>
        <source>%1 failed (see the log).</source>
        <translation>%1 失败（见日志）。</translation>
    </message>
    <message>
        <source>Launching…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Run %1 is running…</source>
        <translation>运行 %1 正在进行…</translation>
    </message>
    <message>
        <source>Run %1 finished.</source>
        <translation>运行 %1 已结束。</translation>
    </message>
    <message>
        <source>The launch ended with exit code %1 (see the log).</source>
        <translation>启动以退出码 %1 结束（见日志）。</translation>
    </message>
    <message>
        <source>No recent workspaces</source>
        <translation>没有最近的工作区</translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation>清空列表</translation>
    </message>
    <message>
        <source>Select a run to see its properties.</source>
        <translation>选择一个运行以查看其属性。</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>New Workspace</source>
        <translation>新建工作区</translation>
    </message>
    <message>
        <source>Fathom workspace (*.sqlite)</source>
        <translation>Fathom 工作区 (*.sqlite)</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message>
        <source>A launch is running; the demo can be built when it ends.</source>
        <translation>有一个启动正在运行；结束后才能生成演示。</translation>
    </message>
    <message>
        <source>Building the demo workspace…</source>
        <translation>正在生成演示工作区…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Demo Workspace</source>
        <translation>演示工作区</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>%1 could not be read.</source>
        <translation>无法读取 %1。</translation>
    </message>
    <message>
        <source>What-if Planner</source>
        <translation>假设分析规划器</translation>
    </message>
    <message>
        <source>Save Comparison</source>
        <translation>保存比较</translation>
    </message>
    <message>
        <source>Open or create a workspace first.</source>
        <translation>请先打开或新建一个工作区。</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>The run could not be started.</source>
        <translation>无法启动该运行。</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>A launch is running. Stop it and quit? The launcher ends its workers and records the run as failed.</source>
        <translation>有一个启动正在运行。要停止并退出吗？启动器会结束其工作进程，并将该运行记录为失败。</translation>
    </message>
    <message>
        <source>Compare %1</source>
        <translation>比较 %1</translation>
    </message>
    <message>
        <source>Following run %1 failed: %2</source>
        <translation>跟踪运行 %1 失败：%2</translation>
    </message>
    <message>
        <source>Select two or more runs to compare.</source>
        <translation>请选择两个或更多运行进行比较。</translation>
    </message>
    <message>
        <source>Computing the plan of run %1 failed: %2</source>
        <translation>计算运行 %1 的计划失败：%2</translation>
    </message>
    <message>
        <source>Open &amp;Trace…</source>
        <translation>打开跟踪文件(&amp;T)…</translation>
    </message>
    <message>
        <source>Open Trace</source>
        <translation>打开跟踪文件</translation>
    </message>
    <message>
        <source>Chrome/Kineto traces (*.json *.json.gz *.gz)</source>
        <translation>Chrome/Kineto 跟踪文件 (*.json *.json.gz *.gz)</translation>
    </message>
    <message>
        <source>Steps: %1</source>
        <translation>步骤：%1</translation>
    </message>
    <message>
        <source>Open Plan</source>
        <translation>打开计划</translation>
    </message>
    <message>
        <source>%1 is not a plan: give the output of fathom plan --json.</source>
        <translation>%1 不是计划：请提供 fathom plan --json 的输出。</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Run %1 cannot be resumed from %2.</source>
        <translation>无法从 %2 恢复运行 %1。</translation>
    </message>
    <message>
        <source>The device map of run %1 could not be shown: %2</source>
        <translation>无法显示运行 %1 的设备映射：%2</translation>
    </message>
    <message>
        <source>Calibrating from run %1 failed: %2</source>
        <translation>根据运行 %1 校准失败：%2</translation>
    </message>
</context>
<context>
    <name>fathom::studio::RunFeed</name>
    <message>
        <source>the stored profile has no run_fit section</source>
        <translation>已存储的配置文件没有 run_fit 部分</translation>
    </message>
</context>
<context>
    <name>fathom::studio::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <source>The language applies when Fathom Studio starts again.</source>
        <translation>语言将在 Fathom Studio 下次启动时生效。</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Restart Fathom Studio now to switch the language?</source>
        <translation>现在重启 Fathom Studio 以切换语言吗？</translation>
    </message>
</context>
<context>
    <name>fathom::studio::WorkspaceController</name>
    <message>
        <source>Reading the workspace</source>
        <translation>读取工作区</translation>
    </message>
    <message>
        <source>Reading run %1</source>
        <translation>读取运行 %1</translation>
    </message>
    <message>
        <source>Saving the comparison</source>
        <translation>保存比较</translation>
    </message>
    <message>
        <source>No workspace is open.</source>
        <translation>没有打开的工作区。</translation>
    </message>
    <message>
        <source>Comparing runs</source>
        <translation>比较运行</translation>
    </message>
</context>
<context>
    <name>fathom::views::AlertsModel</name>
    <message>
        <source>hang</source>
        <translation>挂起</translation>
    </message>
    <message>
        <source>straggler</source>
        <translation>掉队者</translation>
    </message>
    <message>
        <source>stalled %1 s</source>
        <translation>停滞 %1 秒</translation>
    </message>
    <message>
        <source>%1 s per step (others %2 s)</source>
        <translation>每步 %1 秒（其他 %2 秒）</translation>
    </message>
    <message>
        <source>open</source>
        <translation>未结束</translation>
    </message>
    <message>
        <source>Raised</source>
        <translation>报告时间</translation>
    </message>
    <message>
        <source>Alert</source>
        <translation>警报</translation>
    </message>
    <message>
        <source>Ranks behind</source>
        <translation>落后的 rank</translation>
    </message>
    <message>
        <source>Waiting in</source>
        <translation>等待于</translation>
    </message>
    <message>
        <source>How long</source>
        <translation>持续多久</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>resolved</source>
        <translation>已解决</translation>
    </message>
    <message>
        <source>open at the run&apos;s end</source>
        <translation>运行结束时仍未结束</translation>
    </message>
</context>
<context>
    <name>fathom::views::AreaNameModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>总计</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大</translation>
    </message>
</context>
<context>
    <name>fathom::views::AreaPanel</name>
    <message>
        <source>Rank / step</source>
        <translation>秩 / 步</translation>
    </message>
    <message>
        <source>Span</source>
        <translation>跨度</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>Exposed communication</source>
        <translation>暴露的通信</translation>
    </message>
    <message>
        <source>Data loading</source>
        <translation>数据加载</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>No area selected:
Shift+drag over the timeline to select one</source>
        <translation>未选择区域：
在时间线上按住 Shift 拖动以选择区域</translation>
    </message>
    <message>
        <source>%1 to %2 (%3) since the trace&apos;s start
%4 lanes: computing…</source>
        <translation>自跟踪开始起 %1 至 %2（%3）
%4 条轨道：正在计算…</translation>
    </message>
    <message>
        <source>%1 to %2 (%3) since the trace&apos;s start
%4 lanes: %5 slices</source>
        <translation>自跟踪开始起 %1 至 %2（%3）
%4 条轨道：%5 个切片</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>秩 %1</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>%1 · GPU timeline</source>
        <translation>%1 · GPU 时间线</translation>
    </message>
    <message>
        <source>%1 · CPU timeline</source>
        <translation>%1 · CPU 时间线</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
</context>
<context>
    <name>fathom::views::CheckpointsModel</name>
    <message>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>保存时间</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>%1 no longer holds this checkpoint: deleted by --save_total_limit rotation or by hand.</source>
        <translation>%1 中已不再有此检查点：已被 --save_total_limit 轮换或手动删除。</translation>
    </message>
    <message>
        <source>%1 (deleted)</source>
        <translation>%1（已删除）</translation>
    </message>
</context>
<context>
    <name>fathom::views::CollectivesModel</name>
    <message>
        <source>intra-node</source>
        <translation>节点内</translation>
    </message>
    <message>
        <source>inter-node</source>
        <translation>节点间</translation>
    </message>
    <message>
        <source>overlapped, every micro-step</source>
        <translation>重叠，每个微步</translation>
    </message>
    <message>
        <source>overlapped</source>
        <translation>重叠</translation>
    </message>
    <message>
        <source>exposed, every micro-step</source>
        <translation>暴露，每个微步</translation>
    </message>
    <message>
        <source>exposed</source>
        <translation>暴露</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>用途</translation>
    </message>
    <message>
        <source>Buffer bytes</source>
        <translation>缓冲区字节</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>组</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Sent per GPU</source>
        <translation>每 GPU 发送</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Overlap</source>
        <translation>重叠</translation>
    </message>
</context>
<context>
    <name>fathom::views::CommChart</name>
    <message>
        <source>Communication per optimizer step</source>
        <translation>每个优化器步的通信</translation>
    </message>
    <message>
        <source>%1: not a valid plan</source>
        <translation>%1：不是有效方案</translation>
    </message>
    <message>
        <source>%1: %2 sent per GPU, %3 of communication per step</source>
        <translation>%1：每 GPU 发送 %2，每步通信 %3</translation>
    </message>
    <message>
        <source>Sent per GPU (%1)</source>
        <translation>每 GPU 发送（%1）</translation>
    </message>
    <message>
        <source>Communication time (s)</source>
        <translation>通信时间（秒）</translation>
    </message>
    <message>
        <source>%1 per GPU and step</source>
        <translation>每 GPU 每步 %1</translation>
    </message>
    <message>
        <source>Seconds per step</source>
        <translation>每步秒数</translation>
    </message>
</context>
<context>
    <name>fathom::views::ConfigDiffModel</name>
    <message>
        <source>Run %1: %2</source>
        <translation>运行 %1：%2</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
</context>
<context>
    <name>fathom::views::ConfigWizard</name>
    <message>
        <source>New Run Configuration</source>
        <translation>新建运行配置</translation>
    </message>
    <message>
        <source>&amp;Launch</source>
        <translation>启动(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save the file and start the run on this machine</source>
        <translation>保存文件并在本机启动运行</translation>
    </message>
    <message>
        <source>Run Configuration: %1</source>
        <translation>运行配置：%1</translation>
    </message>
    <message>
        <source>Save Configuration</source>
        <translation>保存配置</translation>
    </message>
    <message>
        <source>The configuration could not be saved to %1.</source>
        <translation>无法将配置保存到 %1。</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>The planner predicts that this plan will not fit on %1 (see the planner panel). Launch anyway?</source>
        <translation>规划器预测此方案在 %1 上放不下（见规划器面板）。仍要启动吗？</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it with this configuration?</source>
        <translation>%1 已存在。要用此配置替换它吗？</translation>
    </message>
    <message>
        <source>&amp;Overwrite</source>
        <translation>覆盖(&amp;O)</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceBars</name>
    <message>
        <source>%1 + %2 kept free</source>
        <translation>%1 + 预留 %2</translation>
    </message>
    <message>
        <source>%1 (no limit)</source>
        <translation>%1（无上限）</translation>
    </message>
    <message>
        <source>%1 of %2: over the limit</source>
        <translation>%1 / %2：超出上限</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 holds %2 of the model.</source>
        <translation>%1 存放模型的 %2。</translation>
    </message>
    <message>
        <source>It keeps %1 free for the largest layer on CPU or disk, which is brought to it to run.</source>
        <translation>它为 CPU 或磁盘上最大的层预留 %1，该层运行时会被调入此处。</translation>
    </message>
    <message>
        <source>Limit: %1.</source>
        <translation>上限：%1。</translation>
    </message>
    <message>
        <source>No limit.</source>
        <translation>无上限。</translation>
    </message>
    <message>
        <source>Drop a module here to move it to %1.</source>
        <translation>将模块拖放到此处，即可将其移到 %1。</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceLimitsEditor</name>
    <message>
        <source>Add GPU</source>
        <translation>添加 GPU</translation>
    </message>
    <message>
        <source>Remove GPU</source>
        <translation>移除 GPU</translation>
    </message>
    <message>
        <source>Disk: no limit, used last.</source>
        <translation>磁盘：无上限，最后使用。</translation>
    </message>
    <message>
        <source>Limit of %1</source>
        <translation>%1 的上限</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceMapDocument</name>
    <message>
        <source>There is no device map to change.</source>
        <translation>没有可修改的设备映射。</translation>
    </message>
    <message>
        <source>%1 is not one of the devices.</source>
        <translation>%1 不在设备之列。</translation>
    </message>
    <message>
        <source>%1 is no longer moved to %2: the device is gone.</source>
        <translation>%1 不再移到 %2：该设备已不存在。</translation>
    </message>
    <message>
        <source>The model</source>
        <translation>整个模型</translation>
    </message>
    <message>
        <source>There is no device map to export.</source>
        <translation>没有可导出的设备映射。</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceMapView</name>
    <message>
        <source>The same as balanced: Accelerate tells the two apart nowhere.</source>
        <translation>与 balanced 相同：Accelerate 在任何地方都不区分二者。</translation>
    </message>
    <message>
        <source>Accelerate&apos;s balanced: the GPUs capped at an even share of the model, then filled in order.</source>
        <translation>Accelerate 的 balanced：每块 GPU 的上限设为模型的均等份额，然后按顺序填充。</translation>
    </message>
    <message>
        <source>As balanced, with GPU 0 kept as empty as the other GPUs allow (room for generate&apos;s tensors).</source>
        <translation>与 balanced 相同，但在其他 GPU 允许的范围内让 GPU 0 尽量空闲（为 generate 的张量留出空间）。</translation>
    </message>
    <message>
        <source>GPU 0 filled first, then GPU 1, …, then the CPU and the disk, within the limits as given.</source>
        <translation>在给定的上限内，先填满 GPU 0，再填 GPU 1……，然后是 CPU 和磁盘。</translation>
    </message>
    <message>
        <source>Fathom&apos;s: the smallest largest GPU load, offloading only what the GPUs cannot hold.</source>
        <translation>Fathom 自有策略：使最大的 GPU 负载最小，只卸载 GPU 放不下的部分。</translation>
    </message>
    <message>
        <source>Move refused: %1</source>
        <translation>移动被拒绝：%1</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Devices and limits</source>
        <translation>设备与上限</translation>
    </message>
    <message>
        <source>Planning</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>as stored</source>
        <translation>按存储类型</translation>
    </message>
    <message>
        <source>The dtype the weights are loaded in: floating-point tensors only ever shrink to it.</source>
        <translation>加载权重所用的 dtype：浮点张量只会缩小到该类型，不会变大。</translation>
    </message>
    <message>
        <source>Modules of the checked classes are never split across devices.</source>
        <translation>勾选的类的模块永远不会被拆分到多个设备上。</translation>
    </message>
    <message>
        <source>Strategy:</source>
        <translation>策略：</translation>
    </message>
    <message>
        <source>Weights dtype:</source>
        <translation>权重 dtype：</translation>
    </message>
    <message>
        <source>Keep whole (no split):</source>
        <translation>保持完整（不拆分）：</translation>
    </message>
    <message>
        <source>Reset Moves</source>
        <translation>重置移动</translation>
    </message>
    <message>
        <source>Forget the modules moved by hand: the strategy&apos;s map again.</source>
        <translation>撤销所有手动移动：恢复为策略给出的映射。</translation>
    </message>
    <message>
        <source>Export JSON…</source>
        <translation>导出 JSON…</translation>
    </message>
    <message>
        <source>Hugging Face&apos;s device-map JSON, as from_pretrained(device_map=...) and accelerate.dispatch_model read it.</source>
        <translation>Hugging Face 的设备映射 JSON，from_pretrained(device_map=...) 和 accelerate.dispatch_model 均可读取。</translation>
    </message>
    <message>
        <source>Drag a module onto a device&apos;s bar, or onto a module on another device, or pick its device in the Device column. Bold rows were moved by hand.</source>
        <translation>将模块拖到某个设备的条形上，或拖到另一设备上的模块上，也可在“设备”列中选择其设备。粗体行表示已手动移动。</translation>
    </message>
    <message>
        <source>%1: %2 modules, %3 as stored.</source>
        <translation>%1：%2 个模块，按存储类型共 %3。</translation>
    </message>
    <message>
        <source>No device map: %1</source>
        <translation>无设备映射：%1</translation>
    </message>
    <message>
        <source>Moves no longer applied: %1</source>
        <translation>不再生效的移动：%1</translation>
    </message>
    <message>
        <source>Open a model to plan its device map.</source>
        <translation>请打开一个模型以规划其设备映射。</translation>
    </message>
    <message>
        <source>Balanced&apos;s largest GPU load: %1; optimal&apos;s is %2 lower.</source>
        <translation>balanced 的最大 GPU 负载：%1；optimal 的低 %2。</translation>
    </message>
    <message>
        <source>Moved by hand: %1.</source>
        <translation>手动移动：%1 个。</translation>
    </message>
    <message>
        <source>Export Device Map</source>
        <translation>导出设备映射</translation>
    </message>
    <message>
        <source>Device map JSON (*.json)</source>
        <translation>设备映射 JSON (*.json)</translation>
    </message>
    <message>
        <source>Device map written to %1.</source>
        <translation>设备映射已写入 %1。</translation>
    </message>
    <message>
        <source>Strategy %1. Largest GPU load: %2. Offloaded to CPU and disk: %3. Map entries: %4.</source>
        <translation>策略 %1。最大 GPU 负载：%2。卸载到 CPU 和磁盘：%3。映射条目数：%4。</translation>
    </message>
    <message>
        <source>Open Model…</source>
        <translation>打开模型…</translation>
    </message>
    <message>
        <source>A Hugging Face config.json (gpt2, llama, mistral, mixtral), a safetensors checkpoint or its index, or a module tree in JSON as `fathom device-map --print_tree` writes it.</source>
        <translation>Hugging Face 的 config.json（gpt2、llama、mistral、mixtral）、safetensors 检查点或其索引，或 `fathom device-map --print_tree` 输出的 JSON 模块树。</translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>Parts of the recorded map could not be shown: %1</source>
        <translation>记录的映射有部分无法显示：%1</translation>
    </message>
    <message>
        <source>This is the map %1 dispatched with; Reset Moves shows the strategy&apos;s plan.</source>
        <translation>这是 %1 分派时使用的映射；“重置移动”显示该策略的规划。</translation>
    </message>
</context>
<context>
    <name>fathom::views::EnvironmentModel</name>
    <message>
        <source>available</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>Fathom version</source>
        <translation>Fathom 版本</translation>
    </message>
    <message>
        <source>%1 (git %2, %3)</source>
        <translation>%1（git %2，%3）</translation>
    </message>
    <message>
        <source>Platform</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message numerus="yes">
        <source>%1, %n core(s)</source>
        <translation>
            <numerusform>%1，%n 个核心</numerusform>
        </translation>
    </message>
    <message>
        <source>System RAM</source>
        <translation>系统内存</translation>
    </message>
    <message>
        <source>LibTorch version</source>
        <translation>LibTorch 版本</translation>
    </message>
    <message>
        <source>%1 (CUDA)</source>
        <translation>%1（CUDA）</translation>
    </message>
    <message>
        <source>%1 (CPU only)</source>
        <translation>%1（仅 CPU）</translation>
    </message>
    <message>
        <source>c10d Gloo</source>
        <translation>c10d Gloo</translation>
    </message>
    <message>
        <source>c10d NCCL</source>
        <translation>c10d NCCL</translation>
    </message>
    <message numerus="yes">
        <source>%n CUDA device(s)</source>
        <translation>
            <numerusform>%n 个 CUDA 设备</numerusform>
        </translation>
    </message>
    <message>
        <source>CUDA devices</source>
        <translation>CUDA 设备</translation>
    </message>
    <message>
        <source>CUPTI</source>
        <translation>CUPTI</translation>
    </message>
    <message>
        <source>Qt version</source>
        <translation>Qt 版本</translation>
    </message>
    <message>
        <source>CLI-only build</source>
        <translation>仅命令行构建</translation>
    </message>
    <message>
        <source>Default config</source>
        <translation>默认配置</translation>
    </message>
    <message>
        <source>%1 (not found)</source>
        <translation>%1（未找到）</translation>
    </message>
    <message>
        <source>Property</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
</context>
<context>
    <name>fathom::views::EventLogModel</name>
    <message>
        <source>debug</source>
        <translation>调试</translation>
    </message>
    <message>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>launcher</source>
        <translation>启动器</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>级别</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>fathom::views::HardwareEditor</name>
    <message>
        <source>Custom device, starting from this preset</source>
        <translation>自定义设备（以此预设为起点）</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source> TFLOP/s</source>
        <translation> TFLOP/s</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>显存：</translation>
    </message>
    <message>
        <source>Peak (bf16/fp16):</source>
        <translation>峰值（bf16/fp16）：</translation>
    </message>
    <message>
        <source>Peak (fp32):</source>
        <translation>峰值（fp32）：</translation>
    </message>
    <message>
        <source>GPUs per node:</source>
        <translation>每节点 GPU 数：</translation>
    </message>
    <message>
        <source>Within a node:</source>
        <translation>节点内：</translation>
    </message>
    <message>
        <source>Between nodes:</source>
        <translation>节点间：</translation>
    </message>
    <message>
        <source>Custom device based on %1</source>
        <translation>基于 %1 的自定义设备</translation>
    </message>
</context>
<context>
    <name>fathom::views::HostGroupProxy</name>
    <message numerus="yes">
        <source>%1 (%n rank(s))</source>
        <translation>
            <numerusform>%1（%n 个秩）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::LiveRanksModel</name>
    <message>
        <source>exited</source>
        <translation>已退出</translation>
    </message>
    <message>
        <source>failed (exit code %1)</source>
        <translation>失败（退出码 %1）</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>设备内存</translation>
    </message>
    <message>
        <source>Host memory</source>
        <translation>主机内存</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Last heartbeat</source>
        <translation>最近心跳</translation>
    </message>
    <message>
        <source>Collective entered</source>
        <translation>已进入的集合通信</translation>
    </message>
    <message>
        <source>Collective finished</source>
        <translation>已完成的集合通信</translation>
    </message>
</context>
<context>
    <name>fathom::views::MemoryChart</name>
    <message>
        <source>Memory per GPU by strategy</source>
        <translation>各策略的每 GPU 显存</translation>
    </message>
    <message>
        <source>%1 · %2: %3</source>
        <translation>%1 · %2：%3</translation>
    </message>
    <message>
        <source>%1: not a valid plan</source>
        <translation>%1：不是有效方案</translation>
    </message>
    <message>
        <source>%1 (invalid)</source>
        <translation>%1（无效）</translation>
    </message>
    <message>
        <source>Device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>GiB per GPU</source>
        <translation>每 GPU GiB</translation>
    </message>
</context>
<context>
    <name>fathom::views::MemoryTimeline</name>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>%1 (profiler, %2)</source>
        <translation>%1（性能分析器，%2）</translation>
    </message>
    <message>
        <source>%1 (offloaded to host)</source>
        <translation>%1（卸载到主机）</translation>
    </message>
    <message>
        <source>Rank %1, step %2</source>
        <translation>秩 %1，第 %2 步</translation>
    </message>
    <message>
        <source>%1: measured %2</source>
        <translation>%1：实测 %2</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>完全一致</translation>
    </message>
    <message>
        <source>%1: measured %2, planned %3 (%4)</source>
        <translation>%1：实测 %2，计划 %3（%4）</translation>
    </message>
    <message>
        <source>%1: planned %2</source>
        <translation>%1：计划 %2</translation>
    </message>
    <message>
        <source>%1, planned</source>
        <translation>%1，计划</translation>
    </message>
</context>
<context>
    <name>fathom::views::MetricPlot</name>
    <message>
        <source>mean (band: min–max over ranks)</source>
        <translation>均值（区间：各秩的最小–最大值）</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>秩 %1</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>min–max</source>
        <translation>最小–最大</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Seconds since the run&apos;s first point</source>
        <translation>自运行第一个数据点起的秒数</translation>
    </message>
    <message>
        <source>%1: %2 at %3</source>
        <translation>%1：%2，位于 %3</translation>
    </message>
    <message>
        <source> (smoothed %1)</source>
        <translation>（平滑后 %1）</translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
</context>
<context>
    <name>fathom::views::MetricPlotPanel</name>
    <message>
        <source>The metric to plot</source>
        <translation>要绘制的指标</translation>
    </message>
    <message>
        <source>Per rank</source>
        <translation>按秩</translation>
    </message>
    <message>
        <source>Mean, min–max band</source>
        <translation>均值，最小–最大区间</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Wall time</source>
        <translation>挂钟时间</translation>
    </message>
    <message>
        <source>Exponential smoothing, debiased as in TensorBoard</source>
        <translation>指数平滑，按 TensorBoard 的方式去偏</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>Show all</source>
        <translation>显示全部</translation>
    </message>
    <message>
        <source>Zoom out to every point (Home; the wheel zooms, dragging pans)</source>
        <translation>缩小以显示所有数据点（Home；滚轮缩放，拖动平移）</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save the plot as PNG or SVG, or its points as CSV</source>
        <translation>将图表保存为 PNG 或 SVG，或将其数据点保存为 CSV</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>Export Plot</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG image (*.svg);;CSV points (*.csv)</source>
        <translation>PNG 图像 (*.png);;SVG 图像 (*.svg);;CSV 数据点 (*.csv)</translation>
    </message>
</context>
<context>
    <name>fathom::views::MetricSummaryModel</name>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>点数</translation>
    </message>
    <message>
        <source>Last</source>
        <translation>最新值</translation>
    </message>
    <message>
        <source>At step</source>
        <translation>所在步</translation>
    </message>
    <message>
        <source>Minimum</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>Maximum</source>
        <translation>最大值</translation>
    </message>
</context>
<context>
    <name>fathom::views::ModelSourceEditor</name>
    <message>
        <source>Built-in model</source>
        <translation>内置模型</translation>
    </message>
    <message>
        <source>Transformer dimensions</source>
        <translation>Transformer 尺寸</translation>
    </message>
    <message>
        <source>Hugging Face config.json</source>
        <translation>Hugging Face config.json</translation>
    </message>
    <message>
        <source>Parameter count</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>config.json, or the folder holding it</source>
        <translation>config.json，或包含它的文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Hugging Face model configuration</source>
        <translation>Hugging Face 模型配置</translation>
    </message>
    <message>
        <source>Model configuration (config.json *.json)</source>
        <translation>模型配置 (config.json *.json)</translation>
    </message>
    <message>
        <source> billion</source>
        <translation> 十亿</translation>
    </message>
    <message>
        <source>Parameters:</source>
        <translation>参数：</translation>
    </message>
    <message>
        <source>Layers (n_layer):</source>
        <translation>层数（n_layer）：</translation>
    </message>
    <message>
        <source>Heads (n_head):</source>
        <translation>头数（n_head）：</translation>
    </message>
    <message>
        <source>Width (n_embd):</source>
        <translation>宽度（n_embd）：</translation>
    </message>
    <message>
        <source>Context (block_size):</source>
        <translation>上下文（block_size）：</translation>
    </message>
    <message>
        <source>Vocabulary (vocab_size):</source>
        <translation>词表（vocab_size）：</translation>
    </message>
    <message>
        <source>Width (hidden):</source>
        <translation>宽度（hidden）：</translation>
    </message>
    <message>
        <source>Blocks (layers):</source>
        <translation>块数（layers）：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>GPT (GPT-2 style)</source>
        <translation>GPT（GPT-2 风格）</translation>
    </message>
    <message>
        <source>Llama (RoPE, SwiGLU, GQA)</source>
        <translation>Llama（RoPE、SwiGLU、GQA）</translation>
    </message>
    <message>
        <source>BERT encoder</source>
        <translation>BERT 编码器</translation>
    </message>
    <message>
        <source>T5 encoder-decoder</source>
        <translation>T5 编码器-解码器</translation>
    </message>
    <message>
        <source>as heads</source>
        <translation>同头数</translation>
    </message>
    <message>
        <source>derived</source>
        <translation>自动推导</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>Output layer shares the input embedding</source>
        <translation>输出层与输入嵌入共享权重</translation>
    </message>
    <message>
        <source>Preset:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <source>Family:</source>
        <translation>系列：</translation>
    </message>
    <message>
        <source>Layers:</source>
        <translation>层数：</translation>
    </message>
    <message>
        <source>Hidden size:</source>
        <translation>隐藏层大小：</translation>
    </message>
    <message>
        <source>Attention heads:</source>
        <translation>注意力头数：</translation>
    </message>
    <message>
        <source>Key/value heads:</source>
        <translation>键/值头数：</translation>
    </message>
    <message>
        <source>MLP width:</source>
        <translation>MLP 宽度：</translation>
    </message>
    <message>
        <source>Vocabulary:</source>
        <translation>词表：</translation>
    </message>
    <message>
        <source>Positions:</source>
        <translation>位置数：</translation>
    </message>
    <message>
        <source>Dropout (dropout):</source>
        <translation>Dropout 概率 (dropout):</translation>
    </message>
</context>
<context>
    <name>fathom::views::ModuleTreeModel</name>
    <message>
        <source>(model)</source>
        <translation>（模型）</translation>
    </message>
    <message>
        <source>%1 (%2): %3 on %4.
Drag it onto a device bar, or onto a module on another device, to move it there.</source>
        <translation>%1（%2）：%3，位于 %4。
将其拖到某个设备的条形上，或拖到另一设备上的模块上，即可移到该处。</translation>
    </message>
    <message>
        <source>the model</source>
        <translation>整个模型</translation>
    </message>
    <message>
        <source>no device</source>
        <translation>无设备</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>模块</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
</context>
<context>
    <name>fathom::views::PlanSearchModel</name>
    <message>
        <source>, sequence parallel</source>
        <translation>，序列并行</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>选择性</translation>
    </message>
    <message>
        <source>full</source>
        <translation>完全</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>DP</source>
        <translation>DP</translation>
    </message>
    <message>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <source>PP</source>
        <translation>PP</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>微批</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>累积</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <source>Memory per GPU</source>
        <translation>每 GPU 显存</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
</context>
<context>
    <name>fathom::views::PlanStepModel</name>
    <message>
        <source>Step time</source>
        <translation>步骤时间</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>Exposed communication</source>
        <translation>暴露的通信</translation>
    </message>
    <message>
        <source>+%1 ms</source>
        <translation>+%1 毫秒</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>Per step</source>
        <translation>每步</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测值</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测值</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>差值</translation>
    </message>
</context>
<context>
    <name>fathom::views::PlanVsActualModel</name>
    <message>
        <source>Peak activations</source>
        <translation>激活（峰值）</translation>
    </message>
    <message>
        <source>Total (profiled peak)</source>
        <translation>总计（性能分析峰值）</translation>
    </message>
    <message>
        <source>%1 per step</source>
        <translation>每步 %1</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <source>%1 calls, %2</source>
        <translation>%1 次调用，%2</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>完全一致</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <source>Quantity</source>
        <translation>量</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测值</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测值</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>差值</translation>
    </message>
</context>
<context>
    <name>fathom::views::PlannerPanel</name>
    <message>
        <source>Planner</source>
        <translation>规划器</translation>
    </message>
    <message>
        <source>Updating…</source>
        <translation>正在更新…</translation>
    </message>
    <message>
        <source>Memory per GPU</source>
        <translation>每 GPU 显存</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Communication per step</source>
        <translation>每步通信</translation>
    </message>
    <message>
        <source>Sent per GPU</source>
        <translation>每 GPU 发送</translation>
    </message>
    <message>
        <source>Time (exposed)</source>
        <translation>时间（暴露部分）</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>The prediction appears here as you edit the configuration.</source>
        <translation>编辑配置时，预测结果会显示在这里。</translation>
    </message>
    <message>
        <source>The planner cannot evaluate this configuration: %1</source>
        <translation>规划器无法评估此配置：%1</translation>
    </message>
    <message>
        <source>%1 (%2 parameters)&lt;br&gt;%3 × %4&lt;br&gt;%5, %6, micro-batch %7 × %8</source>
        <translation>%1（%2 参数）&lt;br&gt;%3 × %4&lt;br&gt;%5，%6，微批 %7 × %8</translation>
    </message>
    <message>
        <source>This plan is not valid: %1</source>
        <translation>此方案无效：%1</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>This plan will not fit: it needs %1 per GPU and the device has %2. Shard with FSDP or ZeRO-3, add GPUs, recompute activations or lower the micro-batch.</source>
        <translation>此方案放不下：每 GPU 需要 %1，而设备只有 %2。请用 FSDP 或 ZeRO-3 分片、增加 GPU、重计算激活值或减小微批。</translation>
    </message>
    <message>
        <source>This plan will not fit: the offloaded states need %1 of host memory per node.</source>
        <translation>此方案放不下：卸载的状态每个节点需要 %1 主机内存。</translation>
    </message>
    <message>
        <source>one process</source>
        <translation>单进程</translation>
    </message>
</context>
<context>
    <name>fathom::views::RanksModel</name>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>退出码</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunComparisonPage</name>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Configuration differences</source>
        <translation>配置差异</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>%1 (run %2)</source>
        <translation>%1（运行 %2）</translation>
    </message>
    <message>
        <source>The configuration of run %1 could not be read: %2</source>
        <translation>无法读取运行 %1 的配置：%2</translation>
    </message>
    <message>
        <source>Comparing %1</source>
        <translation>正在比较 %1</translation>
    </message>
    <message>
        <source>The runs&apos; configurations are the same.</source>
        <translation>这些运行的配置相同。</translation>
    </message>
    <message>
        <source>Keys that differ: %1 (the keys every run sets alike are left out).</source>
        <translation>不同的键：%1（所有运行设置相同的键已省略）。</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunDetailsPage</name>
    <message>
        <source>Metrics</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>各秩</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Launch configuration</source>
        <translation>启动配置</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source> (exit code %1)</source>
        <translation>（退出码 %1）</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Ended</source>
        <translation>结束时间</translation>
    </message>
    <message>
        <source>%1, after %2</source>
        <translation>%1，历时 %2</translation>
    </message>
    <message>
        <source>World size</source>
        <translation>进程总数</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>%1 (launcher pid %2)</source>
        <translation>%1（启动器 PID %2）</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Run %1: %2</source>
        <translation>运行 %1：%2</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>警报</translation>
    </message>
    <message>
        <source>Compute the plan</source>
        <translation>计算计划</translation>
    </message>
    <message>
        <source>Computing the plan…</source>
        <translation>正在计算计划…</translation>
    </message>
    <message>
        <source>Plan vs actual</source>
        <translation>计划与实际</translation>
    </message>
    <message>
        <source>The plan made when the run was launched, against what each rank measured (exact where equal, else measured − predicted).</source>
        <translation>运行启动时生成的计划与各 rank 实测值的对比（相等时为“精确”，否则为实测 − 预测）。</translation>
    </message>
    <message>
        <source>A plan computed after the run, against what each rank measured (exact where equal, else measured − predicted).</source>
        <translation>运行结束后计算的计划与各 rank 实测值的对比（相等时为“精确”，否则为实测 − 预测）。</translation>
    </message>
    <message>
        <source>The stored plan could not be compared: %1</source>
        <translation>无法比较已保存的计划：%1</translation>
    </message>
    <message>
        <source>This run was launched without a plan.</source>
        <translation>此运行启动时没有计划。</translation>
    </message>
    <message>
        <source>Computing the plan failed: %1</source>
        <translation>计算计划失败：%1</translation>
    </message>
    <message>
        <source>Alerts (%1 open)</source>
        <translation>警报（%1 个未结束）</translation>
    </message>
    <message>
        <source>Memory over time of rank</source>
        <translation>内存时间线，秩</translation>
    </message>
    <message>
        <source>solid: measured, dashed: planned</source>
        <translation>实线：实测，虚线：计划</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Resume from this checkpoint</source>
        <translation>从此检查点恢复</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>This run was not started from a configuration (fathom launch records one), so the Studio cannot start it again.</source>
        <translation>此运行不是从配置启动的（fathom launch 会记录配置），因此 Studio 无法再次启动它。</translation>
    </message>
    <message>
        <source>Starts the run&apos;s configuration again with --resume_from_checkpoint and the selected checkpoint: training continues from its step.</source>
        <translation>使用 --resume_from_checkpoint 和所选检查点再次启动该运行的配置：训练从该检查点的步数继续。</translation>
    </message>
    <message>
        <source>SLURM job</source>
        <translation>SLURM 作业</translation>
    </message>
    <message>
        <source>%1 (queue state unknown: SLURM cannot be asked from here)</source>
        <translation>%1（队列状态未知：无法从此处查询 SLURM）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Device map…</source>
        <translation>设备映射…</translation>
    </message>
    <message>
        <source>The device map this run&apos;s program dispatched its model with, in the device-map view: where each module went and what each device held.</source>
        <translation>此运行的程序分派模型时使用的设备映射，在设备映射视图中显示：每个模块去了哪里，每个设备容纳了什么。</translation>
    </message>
    <message>
        <source>Run %1, rank %2</source>
        <translation>运行 %1，rank %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 (recorded %2)</source>
        <translation>%1（记录于 %2）</translation>
    </message>
    <message>
        <source>Calibrate from this run</source>
        <translation>根据此运行校准</translation>
    </message>
    <message>
        <source>Reading the run&apos;s traces…</source>
        <translation>正在读取此运行的跟踪…</translation>
    </message>
    <message>
        <source>Calibrating from this run failed: %1</source>
        <translation>根据此运行校准失败：%1</translation>
    </message>
    <message>
        <source>Hardware fit %1 of this run could not be read: %2</source>
        <translation>无法读取此运行的硬件拟合 %1：%2</translation>
    </message>
    <message>
        <source>Fit this machine&apos;s calibrated hardware profile to the run&apos;s profiled traces (fathom plan --calibrate_from); later plans of this machine at the run&apos;s processes and threads use the fit</source>
        <translation>将本机已校准的硬件配置拟合到此运行的性能分析跟踪（fathom plan --calibrate_from）；本机之后采用该运行的进程数和线程数的规划将使用该拟合</translation>
    </message>
    <message>
        <source>Calibrated from this run (hardware fit %1): step time measured %L2 s, predicted %L3 s by the calibration alone and %L4 s after the fit. Measured / predicted: %5. Later plans of this machine at this run&apos;s processes and threads use the fit.</source>
        <translation>已根据此运行校准（硬件拟合 %1）：步时实测 %L2 秒，仅凭校准预测 %L3 秒，拟合后预测 %L4 秒。实测 / 预测：%5。本机之后采用此运行的进程数和线程数的规划将使用该拟合。</translation>
    </message>
    <message>
        <source>Calibrated from this run at %1 (hardware fit %2): step time measured %L3 s over %4 profiled steps. Measured / predicted: %5. Plans of this machine at this run&apos;s processes and threads use its newest fit.</source>
        <translation>已于 %1 根据此运行校准（硬件拟合 %2）：%4 个分析步骤的步时实测 %L3 秒。实测 / 预测：%5。本机采用此运行的进程数和线程数的规划使用其最新拟合。</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunSummaryModel</name>
    <message>
        <source>Run %1: %2</source>
        <translation>运行 %1：%2</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>World size</source>
        <translation>进程总数</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Last step</source>
        <translation>最后一步</translation>
    </message>
    <message>
        <source>Peak device memory per rank</source>
        <translation>每个秩的设备内存峰值</translation>
    </message>
    <message>
        <source>Peak host memory per rank</source>
        <translation>每个秩的主机内存峰值</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunTimelinePage</name>
    <message>
        <source>Trace</source>
        <translation>跟踪</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message numerus="yes">
        <source>Whole run: %n window(s), all ranks</source>
        <translation>
            <numerusform>整个运行：%n 个窗口，所有秩</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Window %1: %n rank(s)</source>
        <translation>
            <numerusform>窗口 %1：%n 个秩</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>All ranks (%n)</source>
        <translation>
            <numerusform>所有秩（%n 个）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n rank(s)</source>
        <translation>
            <numerusform>%1：%n 个秩</numerusform>
        </translation>
    </message>
    <message>
        <source>Rank %1: %2</source>
        <translation>秩 %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>%1 (rank %2): %n chunk(s) stored</source>
        <translation>
            <numerusform>%1（秩 %2）：已存储 %n 个数据块</numerusform>
        </translation>
    </message>
    <message>
        <source>Shown merged on one clock, as `fathom trace merge` merges the files</source>
        <translation>合并到同一时钟上显示，与 `fathom trace merge` 合并文件的方式相同</translation>
    </message>
    <message>
        <source>No trace yet: the run&apos;s profiler stores each window&apos;s trace when the window ends.</source>
        <translation>尚无跟踪：运行的性能分析器会在每个窗口结束时存储该窗口的跟踪。</translation>
    </message>
    <message>
        <source>This run stored no trace. Profile a run (fathom train --profile) to see its timeline.</source>
        <translation>此运行未存储跟踪。对运行进行性能分析（fathom train --profile）即可查看其时间线。</translation>
    </message>
    <message>
        <source>Choose a trace.</source>
        <translation>请选择一个跟踪。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message numerus="yes">
        <source>%1 slices from %n stored trace(s) (%2), read in %3 ms</source>
        <translation>
            <numerusform>%1 个切片，来自 %n 个已存储的跟踪（%2），读取用时 %3 ms</numerusform>
        </translation>
    </message>
    <message>
        <source>; a trace is still being written: its complete events are shown</source>
        <translation>；有跟踪仍在写入：显示其已完整的事件</translation>
    </message>
    <message>
        <source>; live: updates as the run stores traces</source>
        <translation>；实时：随运行存储跟踪而更新</translation>
    </message>
    <message>
        <source>Reading the trace failed: %1</source>
        <translation>读取跟踪失败：%1</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunsBrowser</name>
    <message>
        <source>Filter runs (Ctrl+F)</source>
        <translation>筛选运行（Ctrl+F）</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>No workspace open.</source>
        <translation>未打开工作区。</translation>
    </message>
    <message>
        <source>No run matches the filter.</source>
        <translation>没有符合筛选条件的运行。</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Select two or more runs (Ctrl+click) to compare their metrics, configurations and summaries</source>
        <translation>选择两个或更多运行（Ctrl+单击）以比较其指标、配置和摘要</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunsModel</name>
    <message>
        <source>Single process</source>
        <translation>单进程</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>丢失</translation>
    </message>
    <message>
        <source>%1 (exit code %2)</source>
        <translation>%1（退出码 %2）</translation>
    </message>
    <message>
        <source>%1 so far</source>
        <translation>已运行 %1</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>World size</source>
        <translation>进程总数</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>%1 (open)</source>
        <translation>%1（未结束）</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>警报</translation>
    </message>
</context>
<context>
    <name>fathom::views::SavedPlansModel</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>保存时间</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>Fitting</source>
        <translation>放得下</translation>
    </message>
    <message>
        <source>Fastest fitting</source>
        <translation>最快的可行方案</translation>
    </message>
</context>
<context>
    <name>fathom::views::ScalingChart</name>
    <message>
        <source>Memory per GPU as the GPU count grows</source>
        <translation>每 GPU 显存随 GPU 数量的变化</translation>
    </message>
    <message>
        <source>Step time as the GPU count grows</source>
        <translation>单步时间随 GPU 数量的变化</translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): not a valid plan</source>
        <translation>
            <numerusform>%1，%n 个 GPU：不是有效方案</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): %2 per GPU</source>
        <translation>
            <numerusform>%1，%n 个 GPU：每 GPU %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): %2 per step</source>
        <translation>
            <numerusform>%1，%n 个 GPU：每步 %2</numerusform>
        </translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>设备显存</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>GiB per GPU</source>
        <translation>每 GPU GiB</translation>
    </message>
    <message>
        <source>Seconds per step</source>
        <translation>每步秒数</translation>
    </message>
</context>
<context>
    <name>fathom::views::SliceDetailsPanel</name>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Trace clock (ts)</source>
        <translation>跟踪时钟（ts）</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Self time</source>
        <translation>自身时间</translation>
    </message>
    <message>
        <source>Depth</source>
        <translation>深度</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>轨道</translation>
    </message>
    <message>
        <source>Argument</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Linked slices</source>
        <translation>关联的切片</translation>
    </message>
    <message>
        <source>No slice selected: click one on the timeline</source>
        <translation>未选择切片：请在时间线上点击一个</translation>
    </message>
    <message>
        <source>%1 since the trace&apos;s start</source>
        <translation>自跟踪开始起 %1</translation>
    </message>
    <message>
        <source>Reading the event…</source>
        <translation>正在读取事件…</translation>
    </message>
    <message>
        <source>The trace cannot be read again (it was loaded from a stream).</source>
        <translation>无法再次读取该跟踪（它是从数据流加载的）。</translation>
    </message>
    <message>
        <source>Could not read the event: %1</source>
        <translation>无法读取事件：%1</translation>
    </message>
    <message>
        <source>(no arguments)</source>
        <translation>（无参数）</translation>
    </message>
    <message>
        <source>%1 (%2, %3)</source>
        <translation>%1（%2，%3）</translation>
    </message>
    <message>
        <source>… and %1 more</source>
        <translation>… 另有 %1 个</translation>
    </message>
    <message>
        <source>Flows out (%1)</source>
        <translation>流出（%1）</translation>
    </message>
    <message>
        <source>Launched by (%1)</source>
        <translation>启动者（%1）</translation>
    </message>
    <message>
        <source>Flows in (%1)</source>
        <translation>流入（%1）</translation>
    </message>
    <message>
        <source>Launched GPU work (%1)</source>
        <translation>启动的 GPU 任务（%1）</translation>
    </message>
</context>
<context>
    <name>fathom::views::StepAlignmentCanvas</name>
    <message>
        <source>No ProfilerStep spans in this trace</source>
        <translation>此跟踪文件中没有 ProfilerStep 区间</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>秩 %1</translation>
    </message>
    <message>
        <source>#%1 +%2</source>
        <translation>#%1 +%2</translation>
    </message>
</context>
<context>
    <name>fathom::views::StepAlignmentView</name>
    <message>
        <source>Step:</source>
        <translation>步骤：</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>First to arrive</source>
        <translation>最先到达</translation>
    </message>
    <message>
        <source>Last to arrive</source>
        <translation>最后到达</translation>
    </message>
    <message>
        <source>Lag of the last</source>
        <translation>最后者的滞后</translation>
    </message>
    <message>
        <source>Spread</source>
        <translation>跨度</translation>
    </message>
    <message>
        <source>Measured on rank:</source>
        <translation>实测的秩：</translation>
    </message>
    <message>
        <source>&lt;b&gt;Measured vs predicted&lt;/b&gt;</source>
        <translation>&lt;b&gt;实测与预测&lt;/b&gt;</translation>
    </message>
    <message>
        <source>ProfilerStep#%1</source>
        <translation>ProfilerStep#%1</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>秩 %1</translation>
    </message>
    <message>
        <source>No ProfilerStep spans in this trace.</source>
        <translation>此跟踪文件中没有 ProfilerStep 区间。</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s); %1 collective(s); the ranks&apos; ends differ by %2.</source>
        <translation>
            <numerusform>%n 个秩；%1 个集合通信；各秩的结束时间相差 %2。</numerusform>
        </translation>
    </message>
    <message>
        <source> (not on every rank alike)</source>
        <translation>（各秩不一致）</translation>
    </message>
</context>
<context>
    <name>fathom::views::StrategyComparisonModel</name>
    <message>
        <source>invalid plan</source>
        <translation>无效方案</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Total per GPU</source>
        <translation>每 GPU 合计</translation>
    </message>
    <message>
        <source>Headroom</source>
        <translation>余量</translation>
    </message>
    <message>
        <source>Sent per GPU and step</source>
        <translation>每 GPU 每步发送</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelineExport</name>
    <message>
        <source>Export Range as Chrome Trace…</source>
        <translation>将范围导出为 Chrome 跟踪文件…</translation>
    </message>
    <message>
        <source>Write the selected time range (else the visible one) as a trace Perfetto opens</source>
        <translation>将所选时间范围（否则为可见范围）写成 Perfetto 可打开的跟踪文件</translation>
    </message>
    <message>
        <source>Export View as PNG…</source>
        <translation>将视图导出为 PNG…</translation>
    </message>
    <message>
        <source>Export View as SVG…</source>
        <translation>将视图导出为 SVG…</translation>
    </message>
    <message>
        <source>Export Range</source>
        <translation>导出范围</translation>
    </message>
    <message>
        <source>An export is already running.</source>
        <translation>已有导出正在进行。</translation>
    </message>
    <message>
        <source>No trace is loaded.</source>
        <translation>未加载跟踪文件。</translation>
    </message>
    <message>
        <source>The trace %1 is not a file that can be read again.</source>
        <translation>跟踪 %1 不是可以再次读取的文件。</translation>
    </message>
    <message>
        <source>The range to export is empty.</source>
        <translation>要导出的范围为空。</translation>
    </message>
    <message>
        <source>Writing %1…</source>
        <translation>正在写入 %1…</translation>
    </message>
    <message>
        <source>Export of %1 cancelled.</source>
        <translation>%1 的导出已取消。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Fathom trace timeline</source>
        <translation>Fathom 跟踪时间线</translation>
    </message>
    <message>
        <source>Export Range as Chrome Trace</source>
        <translation>将范围导出为 Chrome 跟踪文件</translation>
    </message>
    <message>
        <source>Chrome trace, compressed (*.json.gz);;Chrome trace (*.json)</source>
        <translation>Chrome 跟踪文件，压缩 (*.json.gz);;Chrome 跟踪文件 (*.json)</translation>
    </message>
    <message>
        <source>Export View as SVG</source>
        <translation>将视图导出为 SVG</translation>
    </message>
    <message>
        <source>Export View as PNG</source>
        <translation>将视图导出为 PNG</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG 图像 (*.svg)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelineMinimap</name>
    <message>
        <source>The whole trace: click to move the view there, drag the box to pan, drag its edges to zoom</source>
        <translation>整个跟踪：单击将视图移到该处，拖动方框平移，拖动其边缘缩放</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelinePage</name>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Area</source>
        <translation>区域</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelineSearchBar</name>
    <message>
        <source>Search slices by name (Ctrl+F)</source>
        <translation>按名称搜索切片 (Ctrl+F)</translation>
    </message>
    <message>
        <source>Regular expression (ECMAScript)</source>
        <translation>正则表达式 (ECMAScript)</translation>
    </message>
    <message>
        <source>Match case</source>
        <translation>区分大小写</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>上一个</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配项 (Shift+Enter)</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一个</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个匹配项 (Enter)</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>No matches</source>
        <translation>无匹配项</translation>
    </message>
    <message>
        <source>1 match</source>
        <translation>1 个匹配项</translation>
    </message>
    <message>
        <source>%1 matches</source>
        <translation>%1 个匹配项</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 个，共 %2 个</translation>
    </message>
    <message>
        <source>Next and Previous visit the first %1 matches</source>
        <translation>“下一个”和“上一个”只浏览前 %1 个匹配项</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelineView</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Could not load the trace %1: %2</source>
        <translation>无法加载跟踪文件 %1：%2</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>No trace loaded</source>
        <translation>未加载跟踪文件</translation>
    </message>
    <message>
        <source>since start, %1 shown</source>
        <translation>自开始起，显示 %1</translation>
    </message>
    <message>
        <source>trace clock, %1 shown</source>
        <translation>跟踪时钟，显示 %1</translation>
    </message>
    <message>
        <source>%1
duration %2, start %3</source>
        <translation>%1
时长 %2，开始于 %3</translation>
    </message>
    <message>
        <source>%1
instant at %2</source>
        <translation>%1
瞬时事件，位于 %2</translation>
    </message>
    <message>
        <source>%1: %2 in total</source>
        <translation>%1：共 %2</translation>
    </message>
    <message>
        <source>Move Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Move Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Move to Top</source>
        <translation>移到顶部</translation>
    </message>
    <message>
        <source>Expand</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>Collapse</source>
        <translation>折叠</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>取消固定</translation>
    </message>
    <message>
        <source>Pin to Top</source>
        <translation>固定到顶部</translation>
    </message>
</context>
<context>
    <name>fathom::views::WhatIfView</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>bf16 (fp32 master copy)</source>
        <translation>bf16（fp32 主副本）</translation>
    </message>
    <message>
        <source>fp16 (fp32 master copy)</source>
        <translation>fp16（fp32 主副本）</translation>
    </message>
    <message>
        <source>fp8 (fp32 master copy)</source>
        <translation>fp8（fp32 主副本）</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>model default</source>
        <translation>模型默认</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>选择性</translation>
    </message>
    <message>
        <source>full</source>
        <translation>完全</translation>
    </message>
    <message>
        <source>Offload optimizer states to the CPU</source>
        <translation>将优化器状态卸载到 CPU</translation>
    </message>
    <message>
        <source>Flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <source>GPUs:</source>
        <translation>GPU 数：</translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation>精度：</translation>
    </message>
    <message>
        <source>Micro-batch per GPU:</source>
        <translation>每 GPU 微批：</translation>
    </message>
    <message>
        <source>Gradient accumulation:</source>
        <translation>梯度累积：</translation>
    </message>
    <message>
        <source>Sequence length:</source>
        <translation>序列长度：</translation>
    </message>
    <message>
        <source>Optimizer:</source>
        <translation>优化器：</translation>
    </message>
    <message>
        <source>Recomputation:</source>
        <translation>重计算：</translation>
    </message>
    <message>
        <source>Details for:</source>
        <translation>详情：</translation>
    </message>
    <message>
        <source>Save to Workspace</source>
        <translation>保存到工作区</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Charts as PNG or SVG…</source>
        <translation>图表导出为 PNG 或 SVG…</translation>
    </message>
    <message>
        <source>Comparison as CSV…</source>
        <translation>比较导出为 CSV…</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Time and communication</source>
        <translation>时间与通信</translation>
    </message>
    <message>
        <source>Strategies</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Collectives</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>Top plans</source>
        <translation>最佳方案</translation>
    </message>
    <message>
        <source>%1: %2 parameters on %3. %4 of %5 strategies fit; %6 plans searched in %7.</source>
        <translation>%1：%2 参数，运行于 %3。%5 种策略中有 %4 种放得下；在 %7 内搜索了 %6 个方案。</translation>
    </message>
    <message>
        <source>%1: %2 sent per GPU per optimizer step</source>
        <translation>%1：每 GPU 每个优化器步发送 %2</translation>
    </message>
    <message>
        <source>Fathom what-if comparison</source>
        <translation>Fathom 假设分析比较</translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
    <message>
        <source>Nothing to export yet.</source>
        <translation>还没有可导出的内容。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Export Charts</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Export Comparison</source>
        <translation>导出比较</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Device map</source>
        <translation>设备映射</translation>
    </message>
    <message>
        <source>Inference / big model: where each module of a model goes across GPUs, CPU and disk (Accelerate&apos;s device maps).</source>
        <translation>推理 / 大模型：模型的每个模块在 GPU、CPU 和磁盘之间如何分布（Accelerate 的设备映射）。</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardBatchPage</name>
    <message>
        <source>Batch size and accumulation</source>
        <translation>批大小与累积</translation>
    </message>
    <message>
        <source>What one optimizer step consumes. Gradient accumulation trades time for memory: the same global batch from smaller micro-batches.</source>
        <translation>一个优化器步消耗的数据量。梯度累积以时间换显存：用更小的微批凑出同样的全局批。</translation>
    </message>
    <message>
        <source>the model&apos;s context</source>
        <translation>模型的上下文长度</translation>
    </message>
    <message>
        <source>Micro-batch per process:</source>
        <translation>每进程微批：</translation>
    </message>
    <message>
        <source>Gradient accumulation steps:</source>
        <translation>梯度累积步数：</translation>
    </message>
    <message>
        <source>Sequence length (planner):</source>
        <translation>序列长度（规划器）：</translation>
    </message>
    <message>
        <source>Global batch: %1 × %2 × %3 processes = %4 samples per optimizer step.</source>
        <translation>全局批：%1 × %2 × %3 个进程 = 每个优化器步 %4 个样本。</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardEnvironmentPage</name>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>Where the run will execute, and the device the planner predicts for.</source>
        <translation>运行在哪里执行，以及规划器针对哪种设备进行预测。</translation>
    </message>
    <message>
        <source>Run on</source>
        <translation>运行于</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Probing this machine…</source>
        <translation>正在探测本机…</translation>
    </message>
    <message>
        <source>Train on the CPU (Gloo), even where GPUs exist</source>
        <translation>在 CPU 上训练（Gloo），即使有 GPU</translation>
    </message>
    <message>
        <source>One host per line, rank 0&apos;s first</source>
        <translation>每行一个主机，秩 0 的主机在前</translation>
    </message>
    <message>
        <source>launcher&apos;s choice</source>
        <translation>由启动器选择</translation>
    </message>
    <message>
        <source>Hosts:</source>
        <translation>主机：</translation>
    </message>
    <message>
        <source>Start agents with:</source>
        <translation>代理启动方式：</translation>
    </message>
    <message>
        <source>SSH user:</source>
        <translation>SSH 用户：</translation>
    </message>
    <message>
        <source>Rendezvous port:</source>
        <translation>汇合端口：</translation>
    </message>
    <message>
        <source>Plan for</source>
        <translation>规划目标</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>as the preset</source>
        <translation>同预设</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>GPUs per node:</source>
        <translation>每节点 GPU 数：</translation>
    </message>
    <message numerus="yes">
        <source>No CUDA device: processes train on the CPU with Gloo (%n core(s), %1 of memory).</source>
        <translation>
            <numerusform>没有 CUDA 设备：各进程用 Gloo 在 CPU 上训练（%n 个核心，%1 内存）。</numerusform>
        </translation>
    </message>
    <message>
        <source>cuda:%1 %2 (%3)</source>
        <translation>cuda:%1 %2（%3）</translation>
    </message>
    <message>
        <source>fathom launch on each machine</source>
        <translation>在每台机器上运行 fathom launch</translation>
    </message>
    <message>
        <source>~/.ssh/config</source>
        <translation>~/.ssh/config</translation>
    </message>
    <message>
        <source>SSH configuration file:</source>
        <translation>SSH 配置文件：</translation>
    </message>
    <message>
        <source>Other hosts (over SSH or under SLURM, one agent per host)</source>
        <translation>其他主机（通过 SSH 或在 SLURM 下，每台主机一个代理）</translation>
    </message>
    <message>
        <source>the cluster&apos;s default</source>
        <translation>集群的默认值</translation>
    </message>
    <message>
        <source>the partition&apos;s default (HH:MM:SS, D-HH:MM, ...)</source>
        <translation>分区的默认值（HH:MM:SS、D-HH:MM 等）</translation>
    </message>
    <message>
        <source>your default account</source>
        <translation>您的默认账户</translation>
    </message>
    <message>
        <source>Nodes:</source>
        <translation>节点：</translation>
    </message>
    <message>
        <source>Partition:</source>
        <translation>分区：</translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation>时间限制：</translation>
    </message>
    <message>
        <source>Account:</source>
        <translation>账户：</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardModelPage</name>
    <message>
        <source>Model and data</source>
        <translation>模型与数据</translation>
    </message>
    <message>
        <source>What trains: one of Fathom&apos;s built-in models on its built-in data, or your own program.</source>
        <translation>训练什么：Fathom 的某个内置模型及其内置数据，或您自己的程序。</translation>
    </message>
    <message>
        <source>Built-in model (fathom train)</source>
        <translation>内置模型（fathom train）</translation>
    </message>
    <message>
        <source>My program</source>
        <translation>我的程序</translation>
    </message>
    <message>
        <source>summary only</source>
        <translation>仅汇总</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>Data: the gpt models read the shipped character-level text corpus, the mlp a synthetic regression set.</source>
        <translation>数据：gpt 模型读取随附的字符级文本语料，mlp 读取合成的回归数据集。</translation>
    </message>
    <message>
        <source>Optimizer steps:</source>
        <translation>优化器步数：</translation>
    </message>
    <message>
        <source>Log every:</source>
        <translation>记录间隔：</translation>
    </message>
    <message>
        <source>Optimizer:</source>
        <translation>优化器：</translation>
    </message>
    <message>
        <source>an executable; a name without &apos;/&apos; is looked up in PATH</source>
        <translation>一个可执行文件；不含 &quot;/&quot; 的名称会在 PATH 中查找</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Training program</source>
        <translation>训练程序</translation>
    </message>
    <message>
        <source>--epochs 3 --data /data/train</source>
        <translation>--epochs 3 --data /data/train</translation>
    </message>
    <message>
        <source>Its model, for the planner</source>
        <translation>其模型（供规划器使用）</translation>
    </message>
    <message>
        <source>Program:</source>
        <translation>程序：</translation>
    </message>
    <message>
        <source>Arguments:</source>
        <translation>参数：</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardParadigmPage</name>
    <message>
        <source>Training paradigm</source>
        <translation>训练范式</translation>
    </message>
    <message>
        <source>How the model and its training state are spread over the processes.</source>
        <translation>模型及其训练状态如何分布到各进程。</translation>
    </message>
    <message>
        <source>No distribution: one process</source>
        <translation>不分布：单进程</translation>
    </message>
    <message>
        <source>DDP: every process holds the whole model; gradients are all-reduced</source>
        <translation>DDP：每个进程持有完整模型；梯度通过 all-reduce 聚合</translation>
    </message>
    <message>
        <source>FSDP: parameters, gradients and optimizer states sharded</source>
        <translation>FSDP：参数、梯度和优化器状态分片</translation>
    </message>
    <message>
        <source>DeepSpeed ZeRO: optimizer states, gradients or parameters sharded by stage</source>
        <translation>DeepSpeed ZeRO：按阶段对优化器状态、梯度或参数分片</translation>
    </message>
    <message>
        <source>Processes (GPUs) in total:</source>
        <translation>进程（GPU）总数：</translation>
    </message>
    <message>
        <source>FSDP</source>
        <translation>FSDP</translation>
    </message>
    <message>
        <source>the model&apos;s repeated blocks</source>
        <translation>模型的重复块</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>FSDP 1</source>
        <translation>FSDP 1</translation>
    </message>
    <message>
        <source>FSDP 2</source>
        <translation>FSDP 2</translation>
    </message>
    <message>
        <source>Offload parameters, gradients and optimizer to the CPU</source>
        <translation>将参数、梯度和优化器卸载到 CPU</translation>
    </message>
    <message>
        <source>Prefetch the next unit in forward</source>
        <translation>前向时预取下一单元</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>激活检查点</translation>
    </message>
    <message>
        <source>Load weights on rank 0 only</source>
        <translation>仅在秩 0 上加载权重</translation>
    </message>
    <message>
        <source>Broadcast rank 0&apos;s parameters</source>
        <translation>广播秩 0 的参数</translation>
    </message>
    <message>
        <source>Use the original parameters</source>
        <translation>使用原始参数</translation>
    </message>
    <message>
        <source>Sharding strategy:</source>
        <translation>分片策略：</translation>
    </message>
    <message>
        <source>Auto-wrap policy:</source>
        <translation>自动包装策略：</translation>
    </message>
    <message>
        <source>Block classes to wrap:</source>
        <translation>要包装的块类：</translation>
    </message>
    <message>
        <source>Minimum parameters per unit:</source>
        <translation>每单元最少参数：</translation>
    </message>
    <message>
        <source>Backward prefetch:</source>
        <translation>反向预取：</translation>
    </message>
    <message>
        <source>Checkpoint layout:</source>
        <translation>检查点格式：</translation>
    </message>
    <message>
        <source>Version:</source>
        <translation>版本：</translation>
    </message>
    <message>
        <source>DeepSpeed ZeRO</source>
        <translation>DeepSpeed ZeRO</translation>
    </message>
    <message>
        <source>Stage 1: optimizer states</source>
        <translation>阶段 1：优化器状态</translation>
    </message>
    <message>
        <source>Stage 2: + gradients</source>
        <translation>阶段 2：+ 梯度</translation>
    </message>
    <message>
        <source>Stage 3: + parameters</source>
        <translation>阶段 3：+ 参数</translation>
    </message>
    <message>
        <source>Build the model sharded (zero3_init_flag)</source>
        <translation>以分片方式构建模型（zero3_init_flag）</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>none: the settings above</source>
        <translation>无：使用上面的设置</translation>
    </message>
    <message>
        <source>DeepSpeed config file:</source>
        <translation>DeepSpeed 配置文件：</translation>
    </message>
    <message>
        <source>Stage:</source>
        <translation>阶段：</translation>
    </message>
    <message>
        <source>Offload optimizer states to:</source>
        <translation>优化器状态卸载到：</translation>
    </message>
    <message>
        <source>Offload parameters to:</source>
        <translation>参数卸载到：</translation>
    </message>
    <message>
        <source>Gradient clipping:</source>
        <translation>梯度裁剪：</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardPrecisionPage</name>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>The number format of the forward and backward passes (Accelerate&apos;s mixed_precision).</source>
        <translation>前向和反向计算所用的数值格式（Accelerate 的 mixed_precision）。</translation>
    </message>
    <message>
        <source>fp32 (no mixed precision)</source>
        <translation>fp32（不使用混合精度）</translation>
    </message>
    <message>
        <source>Parameters, gradients and activations in 32 bits: the most memory, the reference numerics.</source>
        <translation>参数、梯度和激活值均为 32 位：显存占用最多，数值作为参考基准。</translation>
    </message>
    <message>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <source>Matrix products in bfloat16 under autocast; parameters stay fp32. The usual choice on A100, H100 and newer.</source>
        <translation>在 autocast 下用 bfloat16 计算矩阵乘法；参数保持 fp32。A100、H100 及更新的 GPU 上的常用选择。</translation>
    </message>
    <message>
        <source>fp16</source>
        <translation>fp16</translation>
    </message>
    <message>
        <source>Matrix products in float16 with loss scaling (a GradScaler); for GPUs without bf16.</source>
        <translation>用 float16 计算矩阵乘法并进行损失缩放（GradScaler）；适用于不支持 bf16 的 GPU。</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardReviewPage</name>
    <message>
        <source>Review</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>The configuration exactly as it will be saved: an Accelerate config file with Fathom&apos;s section.</source>
        <translation>配置将按原样保存：一个带有 Fathom 部分的 Accelerate 配置文件。</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Save Configuration</source>
        <translation>保存配置</translation>
    </message>
    <message>
        <source>YAML configuration (*.yaml *.yml)</source>
        <translation>YAML 配置 (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Save as:</source>
        <translation>另存为：</translation>
    </message>
    <message>
        <source>This configuration cannot be saved:
%1</source>
        <translation>无法保存此配置：
%1</translation>
    </message>
    <message>
        <source>Launch runs: %1</source>
        <translation>启动将执行：%1</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardToolsPage</name>
    <message>
        <source>Experiment trackers</source>
        <translation>实验跟踪器</translation>
    </message>
    <message>
        <source>Fathom workspace (sqlite)</source>
        <translation>Fathom 工作区（sqlite）</translation>
    </message>
    <message>
        <source>TensorBoard</source>
        <translation>TensorBoard</translation>
    </message>
    <message>
        <source>MLflow</source>
        <translation>MLflow</translation>
    </message>
    <message>
        <source>DVCLive</source>
        <translation>DVCLive</translation>
    </message>
    <message>
        <source>the current directory</source>
        <translation>当前目录</translation>
    </message>
    <message>
        <source>the workspace open in the Studio</source>
        <translation>Studio 中打开的工作区</translation>
    </message>
    <message>
        <source>Project directory:</source>
        <translation>项目目录：</translation>
    </message>
    <message>
        <source>Workspace file:</source>
        <translation>工作区文件：</translation>
    </message>
    <message>
        <source>Profile the run</source>
        <translation>对运行进行性能分析</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>Record shapes</source>
        <translation>记录形状</translation>
    </message>
    <message>
        <source>Profile memory</source>
        <translation>分析显存</translation>
    </message>
    <message>
        <source>With stacks</source>
        <translation>包含调用栈</translation>
    </message>
    <message>
        <source>the project directory</source>
        <translation>项目目录</translation>
    </message>
    <message>
        <source>wait</source>
        <translation>等待</translation>
    </message>
    <message>
        <source>warm-up</source>
        <translation>预热</translation>
    </message>
    <message>
        <source>active</source>
        <translation>活动</translation>
    </message>
    <message>
        <source>repeat</source>
        <translation>重复</translation>
    </message>
    <message>
        <source>Activities:</source>
        <translation>活动：</translation>
    </message>
    <message>
        <source>Schedule (steps):</source>
        <translation>调度（步）：</translation>
    </message>
    <message>
        <source>Record:</source>
        <translation>记录：</translation>
    </message>
    <message>
        <source>Trace folder:</source>
        <translation>跟踪文件夹：</translation>
    </message>
    <message>
        <source>All of Fathom&apos;s trackers</source>
        <translation>Fathom 的全部跟踪器</translation>
    </message>
    <message>
        <source>CSV file</source>
        <translation>CSV 文件</translation>
    </message>
    <message>
        <source>JSON lines file</source>
        <translation>JSON Lines 文件</translation>
    </message>
    <message>
        <source>Trackers, monitoring and profiler</source>
        <translation>跟踪器、监控与性能分析器</translation>
    </message>
    <message>
        <source>Where the run&apos;s metrics go, when the launcher reports a hung or slow rank, and what the profiler records.</source>
        <translation>运行的指标写到哪里，启动器何时报告挂起或缓慢的 rank，以及性能分析器记录什么。</translation>
    </message>
    <message>
        <source>Monitoring</source>
        <translation>监控</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Seconds without progress of any rank, while the ranks disagree on the collective they are in, before the launcher reports a hang. 0 turns hang detection off.</source>
        <translation>在各 rank 所处的集合通信不一致、且没有任何 rank 取得进展的情况下，经过多少秒后启动器报告挂起。0 表示关闭挂起检测。</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>A rank whose own time per step exceeds the other ranks&apos; median by more than this is flagged as a straggler. 0 turns straggler detection off.</source>
        <translation>某个 rank 自身每步用时超出其他 rank 中位数的幅度大于此值时，会被标记为掉队者。0 表示关闭掉队检测。</translation>
    </message>
    <message>
        <source>Stop the run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>Report it, the run goes on</source>
        <translation>报告，运行继续</translation>
    </message>
    <message>
        <source>Hang timeout:</source>
        <translation>挂起超时：</translation>
    </message>
    <message>
        <source>Straggler threshold:</source>
        <translation>掉队阈值：</translation>
    </message>
    <message>
        <source>On a hang:</source>
        <translation>发生挂起时：</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Demo workspace ready: %1</source>
        <translation>演示工作区已就绪：%1</translation>
    </message>
    <message>
        <source>%1: only one workspace can be opened (%2 is one already)</source>
        <translation>%1：只能打开一个工作区（%2 已经是一个）</translation>
    </message>
</context>
</TS>
