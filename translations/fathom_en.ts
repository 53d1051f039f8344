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
</TS>
