<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>fathom::studio::EnvironmentController</name>
    <message numerus="yes">
        <source>%n × %1</source>
        <translation>
            <numerusform>%n × %1</numerusform>
            <numerusform>%n × %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>LibTorch %1 · %2 · %n CPU core(s)</source>
        <translation>
            <numerusform>LibTorch %1 · %2 · %n CPU core</numerusform>
            <numerusform>LibTorch %1 · %2 · %n CPU cores</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::studio::HomePage</name>
    <message numerus="yes">
        <source>Workspace %1: %n run(s). Double-click a run in the Runs panel to open it.</source>
        <translation>
            <numerusform>Workspace %1: %n run. Double-click a run in the Runs panel to open it.</numerusform>
            <numerusform>Workspace %1: %n runs. Double-click a run in the Runs panel to open it.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::EnvironmentModel</name>
    <message numerus="yes">
        <source>%1, %n core(s)</source>
        <translation>
            <numerusform>%1, %n core</numerusform>
            <numerusform>%1, %n cores</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n CUDA device(s)</source>
        <translation>
            <numerusform>%n CUDA device</numerusform>
            <numerusform>%n CUDA devices</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::HostGroupProxy</name>
    <message numerus="yes">
        <source>%1 (%n rank(s))</source>
        <translation>
            <numerusform>%1 (%n rank)</numerusform>
            <numerusform>%1 (%n ranks)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::RunTimelinePage</name>
    <message numerus="yes">
        <source>Whole run: %n window(s), all ranks</source>
        <translation>
            <numerusform>Whole run: %n window, all ranks</numerusform>
            <numerusform>Whole run: %n windows, all ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Window %1: %n rank(s)</source>
        <translation>
            <numerusform>Window %1: %n rank</numerusform>
            <numerusform>Window %1: %n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>All ranks (%n)</source>
        <translation>
            <numerusform>All ranks (%n)</numerusform>
            <numerusform>All ranks (%n)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n rank(s)</source>
        <translation>
            <numerusform>%1: %n rank</numerusform>
            <numerusform>%1: %n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (rank %2): %n chunk(s) stored</source>
        <translation>
            <numerusform>%1 (rank %2): %n chunk stored</numerusform>
            <numerusform>%1 (rank %2): %n chunks stored</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 slices from %n stored trace(s) (%2), read in %3 ms</source>
        <translation>
            <numerusform>%1 slices from %n stored trace (%2), read in %3 ms</numerusform>
            <numerusform>%1 slices from %n stored traces (%2), read in %3 ms</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::ScalingChart</name>
    <message numerus="yes">
        <source>%1 on %n GPU(s): not a valid plan</source>
        <translation>
            <numerusform>%1 on %n GPU: not a valid plan</numerusform>
            <numerusform>%1 on %n GPUs: not a valid plan</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): %2 per GPU</source>
        <translation>
            <numerusform>%1 on %n GPU: %2 per GPU</numerusform>
            <numerusform>%1 on %n GPUs: %2 per GPU</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): %2 per step</source>
        <translation>
            <numerusform>%1 on %n GPU: %2 per step</numerusform>
            <numerusform>%1 on %n GPUs: %2 per step</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::StepAlignmentView</name>
    <message numerus="yes">
        <source>%n rank(s); %1 collective(s); the ranks&apos; ends differ by %2.</source>
        <translation>
            <numerusform>%n rank; %1 collective(s); the ranks&apos; ends differ by %2.</numerusform>
            <numerusform>%n ranks; %1 collective(s); the ranks&apos; ends differ by %2.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardEnvironmentPage</name>
    <message numerus="yes">
        <source>No CUDA device: processes train on the CPU with Gloo (%n core(s), %1 of memory).</source>
        <translation>
            <numerusform>No CUDA device: processes train on the CPU with Gloo (%n core, %1 of memory).</numerusform>
            <numerusform>No CUDA device: processes train on the CPU with Gloo (%n cores, %1 of memory).</numerusform>
        </translation>
    </message>
</context>
</TS>
