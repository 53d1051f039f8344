<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>fathom::studio::AboutDialog</name>
    <message>
        <source>About Fathom Studio</source>
        <translation>Über Fathom Studio</translation>
    </message>
    <message>
        <source>&lt;p&gt;A workbench for distributed PyTorch training: plan memory, communication and step time before a run, launch it, and see why it is slow.&lt;/p&gt;&lt;p&gt;Git revision %1 (%2 build)&lt;br&gt;LibTorch %3&lt;br&gt;Qt %4 (running on %5)&lt;/p&gt;&lt;p&gt;Licensed under the Apache License 2.0.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Eine Werkbank für verteiltes PyTorch-Training: Speicher, Kommunikation und Schrittzeit vor dem Lauf planen, ihn starten und sehen, warum er langsam ist.&lt;/p&gt;&lt;p&gt;Git-Revision %1 (%2-Build)&lt;br&gt;LibTorch %3&lt;br&gt;Qt %4 (ausgeführt mit %5)&lt;/p&gt;&lt;p&gt;Lizenziert unter der Apache License 2.0.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>fathom::studio::EnvironmentController</name>
    <message>
        <source>CPU only</source>
        <translation>nur CPU</translation>
    </message>
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
            <numerusform>LibTorch %1 · %2 · %n CPU-Kern</numerusform>
            <numerusform>LibTorch %1 · %2 · %n CPU-Kerne</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::studio::MainWindow</name>
    <message>
        <source>Fathom Studio</source>
        <translation>Fathom Studio</translation>
    </message>
    <message>
        <source>Welcome to Fathom Studio</source>
        <translation>Willkommen bei Fathom Studio</translation>
    </message>
    <message>
        <source>This machine, as Fathom sees it. Runs, plans and traces will appear here once a workspace is open.</source>
        <translation>Dieser Rechner, wie Fathom ihn sieht. Läufe, Pläne und Traces erscheinen hier, sobald ein Arbeitsbereich geöffnet ist.</translation>
    </message>
    <message>
        <source>Probing environment…</source>
        <translation>Umgebung wird ermittelt…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Refresh Environment</source>
        <translation>Umgebung &amp;aktualisieren</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About Fathom Studio</source>
        <translation>&amp;Über Fathom Studio</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Über &amp;Qt</translation>
    </message>
</context>
<context>
    <name>fathom::views::EnvironmentModel</name>
    <message>
        <source>available</source>
        <translation>verfügbar</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>nicht verfügbar</translation>
    </message>
    <message>
        <source>Fathom version</source>
        <translation>Fathom-Version</translation>
    </message>
    <message>
        <source>%1 (git %2, %3)</source>
        <translation>%1 (git %2, %3)</translation>
    </message>
    <message>
        <source>Platform</source>
        <translation>Plattform</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message numerus="yes">
        <source>%1, %n core(s)</source>
        <translation>
            <numerusform>%1, %n Kern</numerusform>
            <numerusform>%1, %n Kerne</numerusform>
        </translation>
    </message>
    <message>
        <source>System RAM</source>
        <translation>Arbeitsspeicher</translation>
    </message>
    <message>
        <source>LibTorch version</source>
        <translation>LibTorch-Version</translation>
    </message>
    <message>
        <source>%1 (CUDA)</source>
        <translation>%1 (CUDA)</translation>
    </message>
    <message>
        <source>%1 (CPU only)</source>
        <translation>%1 (nur CPU)</translation>
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
            <numerusform>%n CUDA-Gerät</numerusform>
            <numerusform>%n CUDA-Geräte</numerusform>
        </translation>
    </message>
    <message>
        <source>CUDA devices</source>
        <translation>CUDA-Geräte</translation>
    </message>
    <message>
        <source>CUPTI</source>
        <translation>CUPTI</translation>
    </message>
    <message>
        <source>Qt version</source>
        <translation>Qt-Version</translation>
    </message>
    <message>
        <source>CLI-only build</source>
        <translation>Build nur mit Kommandozeile</translation>
    </message>
    <message>
        <source>Default config</source>
        <translation>Standardkonfiguration</translation>
    </message>
    <message>
        <source>%1 (not found)</source>
        <translation>%1 (nicht gefunden)</translation>
    </message>
    <message>
        <source>Property</source>
        <translation>Eigenschaft</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
</context>
</TS>
