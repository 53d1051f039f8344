<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
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
        <translation>Datenträger</translation>
    </message>
</context>
<context>
    <name>Format</name>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 µs</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 billion</source>
        <translation>%1 Mrd.</translation>
    </message>
    <message>
        <source>%1 million</source>
        <translation>%1 Mio.</translation>
    </message>
    <message>
        <source>%1 thousand</source>
        <translation>%1 Tsd.</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 Token/s</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
</context>
<context>
    <name>MemoryCategory</name>
    <message>
        <source>Parameters</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Gradienten</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>Optimiererzustände</translation>
    </message>
    <message>
        <source>Master weights</source>
        <translation>Master-Gewichte</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>Aktivierungen</translation>
    </message>
    <message>
        <source>Gathered parameters</source>
        <translation>Gesammelte Parameter</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>Kommunikationspuffer</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>Framework-Overhead</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>Temporäre Puffer</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>Sonstiges</translation>
    </message>
</context>
<context>
    <name>ModelTreeSource</name>
    <message>
        <source>Cannot build %1: %2</source>
        <translation>%1 kann nicht gebaut werden: %2</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1 is not JSON: %2</source>
        <translation>%1 ist kein JSON: %2</translation>
    </message>
    <message>
        <source>%1 is not a module tree: %2</source>
        <translation>%1 ist kein Modulbaum: %2</translation>
    </message>
    <message>
        <source>%1 is not a readable checkpoint: %2</source>
        <translation>%1 ist kein lesbarer Checkpoint: %2</translation>
    </message>
    <message>
        <source>%1 is not a model config this view can build: %2</source>
        <translation>%1 ist keine Modellkonfiguration, die diese Ansicht aufbauen kann: %2</translation>
    </message>
    <message>
        <source>Models (*.json *.safetensors)</source>
        <translation>Modelle (*.json *.safetensors)</translation>
    </message>
</context>
<context>
    <name>OpenFile</name>
    <message>
        <source>%1: no such file</source>
        <translation>%1: Datei nicht gefunden</translation>
    </message>
    <message>
        <source>%1 is not a file</source>
        <translation>%1 ist keine Datei</translation>
    </message>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1 is not a Fathom workspace (not an SQLite database)</source>
        <translation>%1 ist kein Fathom-Arbeitsbereich (keine SQLite-Datenbank)</translation>
    </message>
    <message>
        <source>%1 is not a trace: %2</source>
        <translation>%1 ist kein Trace: %2</translation>
    </message>
    <message>
        <source>%1 is neither a trace (Chrome/Kineto JSON: .json, .json.gz, .pt.trace.json) nor a Fathom workspace (.sqlite)</source>
        <translation>%1 ist weder ein Trace (Chrome/Kineto-JSON: .json, .json.gz, .pt.trace.json) noch ein Fathom-Arbeitsbereich (.sqlite)</translation>
    </message>
</context>
<context>
    <name>PlanLanePainter</name>
    <message>
        <source>pipeline bubble</source>
        <translation>Pipeline-Leerlauf</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>Vorwärts</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>Rückwärts</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>Optimierer</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>Kommunikation</translation>
    </message>
    <message>
        <source>exposed: the step waits for it</source>
        <translation>nicht verdeckt: der Schritt wartet darauf</translation>
    </message>
    <message>
        <source>hidden under compute</source>
        <translation>unter der Berechnung verdeckt</translation>
    </message>
    <message>
        <source>planned %1
predicted %2, at ProfilerStep#%3 + %4</source>
        <translation>geplant: %1
vorhergesagt %2, bei ProfilerStep#%3 + %4</translation>
    </message>
    <message>
        <source>overhead</source>
        <translation>Mehraufwand</translation>
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
        <translation>FSDP, volles Sharding</translation>
    </message>
    <message>
        <source>FSDP shard grad op</source>
        <translation>FSDP, Grad./Opt. geshardet</translation>
    </message>
    <message>
        <source>FSDP hybrid shard</source>
        <translation>FSDP, hybrides Sharding</translation>
    </message>
    <message>
        <source>FSDP hybrid shard ZeRO-2</source>
        <translation>FSDP, hybrides Sharding (ZeRO-2)</translation>
    </message>
    <message>
        <source>FSDP no shard</source>
        <translation>FSDP ohne Sharding</translation>
    </message>
    <message>
        <source>%1 + offload</source>
        <translation>%1 + Auslagerung</translation>
    </message>
    <message>
        <source>FSDP full</source>
        <translation>FSDP voll</translation>
    </message>
    <message>
        <source>FSDP grad-op</source>
        <translation>FSDP Grad./Opt.</translation>
    </message>
    <message>
        <source>FSDP hybrid</source>
        <translation>FSDP hybrid</translation>
    </message>
    <message>
        <source>FSDP hybrid-2</source>
        <translation>FSDP hybrid-2</translation>
    </message>
    <message>
        <source>FSDP none</source>
        <translation>FSDP ohne</translation>
    </message>
</context>
<context>
    <name>TimelineLayout</name>
    <message>
        <source>rank %1 · %2</source>
        <translation>Rang %1 · %2</translation>
    </message>
    <message>
        <source>plan (predicted step)</source>
        <translation>Plan (vorhergesagter Schritt)</translation>
    </message>
</context>
<context>
    <name>WizardRun</name>
    <message>
        <source>distributed_type %1 is edited as data parallel (DDP) and saved as %2.</source>
        <translation>distributed_type %1 wird als Datenparallelität (DDP) bearbeitet und als %2 gespeichert.</translation>
    </message>
    <message>
        <source>Tracker %1 is not one Fathom runs (%2); `fathom train` refuses it.</source>
        <translation>Tracker %1 wird von Fathom nicht ausgeführt (%2); `fathom train` lehnt ihn ab.</translation>
    </message>
    <message>
        <source>The file names no program; the wizard proposes the built-in gpt-tiny (page Model and data).</source>
        <translation>Die Datei nennt kein Programm; der Assistent schlägt das eingebaute gpt-tiny vor (Seite „Modell und Daten“).</translation>
    </message>
</context>
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
    <name>fathom::studio::DemoBuilder</name>
    <message>
        <source>Training gpt-tiny on 2 processes: step %1 of %2</source>
        <translation>gpt-tiny wird auf 2 Prozessen trainiert: Schritt %1 von %2</translation>
    </message>
    <message>
        <source>The demo run failed (fathom launch exited with %1).</source>
        <translation>Der Demo-Lauf ist fehlgeschlagen (fathom launch endete mit %1).</translation>
    </message>
    <message>
        <source>Preparing %1</source>
        <translation>%1 wird vorbereitet</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>Der Ordner %1 kann nicht angelegt werden.</translation>
    </message>
    <message>
        <source>Cannot write the demo configuration.</source>
        <translation>Die Demo-Konfiguration kann nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Launching gpt-tiny on 2 processes</source>
        <translation>gpt-tiny wird auf 2 Prozessen gestartet</translation>
    </message>
    <message>
        <source>Cannot launch the demo run.</source>
        <translation>Der Demo-Lauf kann nicht gestartet werden.</translation>
    </message>
    <message>
        <source>Comparing strategies for Llama 2 7B on 8 × H100</source>
        <translation>Strategien für Llama 2 7B auf 8 × H100 werden verglichen</translation>
    </message>
    <message>
        <source>Cannot save the demo comparison.</source>
        <translation>Der Demo-Vergleich kann nicht gespeichert werden.</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>Fertig</translation>
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
    <name>fathom::studio::HomePage</name>
    <message>
        <source>Welcome to Fathom Studio</source>
        <translation>Willkommen bei Fathom Studio</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Loslegen</translation>
    </message>
    <message>
        <source>Open Workspace…</source>
        <translation>Arbeitsbereich öffnen…</translation>
    </message>
    <message>
        <source>A fathom.sqlite with runs and saved plans</source>
        <translation>Eine fathom.sqlite mit Läufen und gespeicherten Plänen</translation>
    </message>
    <message>
        <source>New Workspace…</source>
        <translation>Neuer Arbeitsbereich…</translation>
    </message>
    <message>
        <source>An empty workspace for new runs</source>
        <translation>Ein leerer Arbeitsbereich für neue Läufe</translation>
    </message>
    <message>
        <source>Open the Demo Workspace</source>
        <translation>Demo-Arbeitsbereich öffnen</translation>
    </message>
    <message>
        <source>A finished demo run and a saved plan comparison; built on first use (a short real training run)</source>
        <translation>Ein abgeschlossener Demo-Lauf und ein gespeicherter Planvergleich; beim ersten Mal erstellt (ein kurzes echtes Training)</translation>
    </message>
    <message>
        <source>New Run Configuration…</source>
        <translation>Neue Laufkonfiguration…</translation>
    </message>
    <message>
        <source>The wizard, with the planner beside every page</source>
        <translation>Der Assistent, mit dem Planer neben jeder Seite</translation>
    </message>
    <message>
        <source>What-if Planner</source>
        <translation>Was-wäre-wenn-Planer</translation>
    </message>
    <message>
        <source>Memory, communication and step time of every strategy</source>
        <translation>Speicher, Kommunikation und Schrittzeit jeder Strategie</translation>
    </message>
    <message>
        <source>Recent workspaces</source>
        <translation>Zuletzt verwendete Arbeitsbereiche</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>None yet</source>
        <translation>Noch keine</translation>
    </message>
    <message>
        <source>No workspace is open. Open one, create one, or start with the demo.</source>
        <translation>Kein Arbeitsbereich geöffnet. Öffnen oder erstellen Sie einen, oder beginnen Sie mit der Demo.</translation>
    </message>
    <message numerus="yes">
        <source>Workspace %1: %n run(s). Double-click a run in the Runs panel to open it.</source>
        <translation>
            <numerusform>Arbeitsbereich %1: %n Lauf. Doppelklicken Sie auf einen Lauf in der Liste „Läufe“, um ihn zu öffnen.</numerusform>
            <numerusform>Arbeitsbereich %1: %n Läufe. Doppelklicken Sie auf einen Lauf in der Liste „Läufe“, um ihn zu öffnen.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::studio::LaunchController</name>
    <message>
        <source>Could not start %1: %2</source>
        <translation>%1 konnte nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>A launch is already running.</source>
        <translation>Es läuft bereits ein Start.</translation>
    </message>
    <message>
        <source>The configuration names no program to run.</source>
        <translation>Die Konfiguration nennt kein Programm zum Ausführen.</translation>
    </message>
    <message>
        <source>The fathom command was not found next to the Studio or in PATH.</source>
        <translation>Der Befehl fathom wurde weder neben dem Studio noch im PATH gefunden.</translation>
    </message>
    <message>
        <source>Submitted SLURM job %1; waiting for it to start.</source>
        <translation>SLURM-Job %1 eingereicht; warte auf seinen Start.</translation>
    </message>
    <message>
        <source>SLURM job %1: %2</source>
        <translation>SLURM-Job %1: %2</translation>
    </message>
</context>
<context>
    <name>fathom::studio::MainWindow</name>
    <message>
        <source>Fathom Studio</source>
        <translation>Fathom Studio</translation>
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
    <message>
        <source>Home</source>
        <translation>Start</translation>
    </message>
    <message>
        <source>No workspace</source>
        <translation>Kein Arbeitsbereich</translation>
    </message>
    <message>
        <source>&amp;Open Workspace…</source>
        <translation>Arbeitsbereich ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>&amp;New Workspace…</source>
        <translation>&amp;Neuer Arbeitsbereich…</translation>
    </message>
    <message>
        <source>&amp;Close Workspace</source>
        <translation>Arbeitsbereich &amp;schließen</translation>
    </message>
    <message>
        <source>Open &amp;Demo Workspace</source>
        <translation>&amp;Demo-Arbeitsbereich öffnen</translation>
    </message>
    <message>
        <source>New Run &amp;Configuration…</source>
        <translation>Neue Lauf&amp;konfiguration…</translation>
    </message>
    <message>
        <source>Open Con&amp;figuration…</source>
        <translation>Konfi&amp;guration öffnen…</translation>
    </message>
    <message>
        <source>&amp;What-if Planner</source>
        <translation>&amp;Was-wäre-wenn-Planer</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>&amp;Aktualisieren</translation>
    </message>
    <message>
        <source>&amp;Filter Runs</source>
        <translation>Läufe &amp;filtern</translation>
    </message>
    <message>
        <source>&amp;Stop Launch</source>
        <translation>Start a&amp;bbrechen</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>Anordnung &amp;zurücksetzen</translation>
    </message>
    <message>
        <source>Close &amp;Tab</source>
        <translation>&amp;Tab schließen</translation>
    </message>
    <message>
        <source>Open Configuration</source>
        <translation>Konfiguration öffnen</translation>
    </message>
    <message>
        <source>Configuration (*.yaml *.yml *.json)</source>
        <translation>Konfiguration (*.yaml *.yml *.json)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Lauf</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Double-click a comparison to open it in the what-if planner</source>
        <translation>Doppelklicken Sie auf einen Vergleich, um ihn im Was-wäre-wenn-Planer zu öffnen</translation>
    </message>
    <message>
        <source>Saved plans</source>
        <translation>Gespeicherte Pläne</translation>
    </message>
    <message>
        <source>This saved plan is not a what-if comparison.</source>
        <translation>Dieser gespeicherte Plan ist kein Was-wäre-wenn-Vergleich.</translation>
    </message>
    <message>
        <source>Saved Plan</source>
        <translation>Gespeicherter Plan</translation>
    </message>
    <message>
        <source>This comparison cannot be opened.</source>
        <translation>Dieser Vergleich kann nicht geöffnet werden.</translation>
    </message>
    <message>
        <source>Properties</source>
        <translation>Eigenschaften</translation>
    </message>
    <message>
        <source>Open the what-if planner (Ctrl+Shift+P) or a saved comparison: the plan it highlights is summarised here.</source>
        <translation>Öffnen Sie den Was-wäre-wenn-Planer (Strg+Umschalt+P) oder einen gespeicherten Vergleich: Der dort hervorgehobene Plan wird hier zusammengefasst.</translation>
    </message>
    <message>
        <source>Planner</source>
        <translation>Planer</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>%1 – Fathom Studio</source>
        <translation>%1 – Fathom Studio</translation>
    </message>
    <message>
        <source>No runs yet. Configure one (Ctrl+Shift+N) and launch it.</source>
        <translation>Noch keine Läufe. Konfigurieren Sie einen (Strg+Umschalt+N) und starten Sie ihn.</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>%1 geöffnet</translation>
    </message>
    <message>
        <source>Open Workspace</source>
        <translation>Arbeitsbereich öffnen</translation>
    </message>
    <message>
        <source>%1 could not be opened.</source>
        <translation>%1 konnte nicht geöffnet werden.</translation>
    </message>
    <message>
        <source>No workspace open.</source>
        <translation>Kein Arbeitsbereich geöffnet.</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>Comparison saved as plan %1.</source>
        <translation>Vergleich als Plan %1 gespeichert.</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>%1 failed (see the log).</source>
        <translation>%1 fehlgeschlagen (siehe Protokoll).</translation>
    </message>
    <message>
        <source>Launching…</source>
        <translation>Wird gestartet…</translation>
    </message>
    <message>
        <source>Run %1 is running…</source>
        <translation>Lauf %1 läuft…</translation>
    </message>
    <message>
        <source>Run %1 finished.</source>
        <translation>Lauf %1 ist beendet.</translation>
    </message>
    <message>
        <source>The launch ended with exit code %1 (see the log).</source>
        <translation>Der Start endete mit Exit-Code %1 (siehe Protokoll).</translation>
    </message>
    <message>
        <source>No recent workspaces</source>
        <translation>Keine zuletzt verwendeten Arbeitsbereiche</translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation>Liste leeren</translation>
    </message>
    <message>
        <source>Select a run to see its properties.</source>
        <translation>Wählen Sie einen Lauf, um seine Eigenschaften zu sehen.</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>New Workspace</source>
        <translation>Neuer Arbeitsbereich</translation>
    </message>
    <message>
        <source>Fathom workspace (*.sqlite)</source>
        <translation>Fathom-Arbeitsbereich (*.sqlite)</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>%1 wird geöffnet…</translation>
    </message>
    <message>
        <source>A launch is running; the demo can be built when it ends.</source>
        <translation>Ein Start läuft; die Demo kann erstellt werden, wenn er endet.</translation>
    </message>
    <message>
        <source>Building the demo workspace…</source>
        <translation>Demo-Arbeitsbereich wird erstellt…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Demo Workspace</source>
        <translation>Demo-Arbeitsbereich</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 gespeichert</translation>
    </message>
    <message>
        <source>%1 could not be read.</source>
        <translation>%1 konnte nicht gelesen werden.</translation>
    </message>
    <message>
        <source>What-if Planner</source>
        <translation>Was-wäre-wenn-Planer</translation>
    </message>
    <message>
        <source>Save Comparison</source>
        <translation>Vergleich speichern</translation>
    </message>
    <message>
        <source>Open or create a workspace first.</source>
        <translation>Öffnen oder erstellen Sie zuerst einen Arbeitsbereich.</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>The run could not be started.</source>
        <translation>Der Lauf konnte nicht gestartet werden.</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>A launch is running. Stop it and quit? The launcher ends its workers and records the run as failed.</source>
        <translation>Ein Start läuft. Abbrechen und beenden? Der Launcher beendet seine Worker und vermerkt den Lauf als fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Compare %1</source>
        <translation>Vergleich %1</translation>
    </message>
    <message>
        <source>Following run %1 failed: %2</source>
        <translation>Verfolgen von Lauf %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Select two or more runs to compare.</source>
        <translation>Zum Vergleichen zwei oder mehr Läufe auswählen.</translation>
    </message>
    <message>
        <source>Computing the plan of run %1 failed: %2</source>
        <translation>Berechnen des Plans von Lauf %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>Open &amp;Trace…</source>
        <translation>&amp;Trace öffnen…</translation>
    </message>
    <message>
        <source>Open Trace</source>
        <translation>Trace öffnen</translation>
    </message>
    <message>
        <source>Chrome/Kineto traces (*.json *.json.gz *.gz)</source>
        <translation>Chrome-/Kineto-Traces (*.json *.json.gz *.gz)</translation>
    </message>
    <message>
        <source>Steps: %1</source>
        <translation>Schritte: %1</translation>
    </message>
    <message>
        <source>Open Plan</source>
        <translation>Plan öffnen</translation>
    </message>
    <message>
        <source>%1 is not a plan: give the output of fathom plan --json.</source>
        <translation>%1 ist kein Plan: Geben Sie die Ausgabe von fathom plan --json an.</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Run %1 cannot be resumed from %2.</source>
        <translation>Lauf %1 kann nicht von %2 fortgesetzt werden.</translation>
    </message>
    <message>
        <source>The device map of run %1 could not be shown: %2</source>
        <translation>Die Device-Map von Lauf %1 konnte nicht angezeigt werden: %2</translation>
    </message>
    <message>
        <source>Calibrating from run %1 failed: %2</source>
        <translation>Kalibrieren anhand von Lauf %1 fehlgeschlagen: %2</translation>
    </message>
</context>
<context>
    <name>fathom::studio::RunFeed</name>
    <message>
        <source>the stored profile has no run_fit section</source>
        <translation>das gespeicherte Profil hat keinen Abschnitt run_fit</translation>
    </message>
</context>
<context>
    <name>fathom::studio::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <source>The language applies when Fathom Studio starts again.</source>
        <translation>Die Sprache gilt ab dem nächsten Start von Fathom Studio.</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>Sprache:</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>Restart Fathom Studio now to switch the language?</source>
        <translation>Fathom Studio jetzt neu starten, um die Sprache zu wechseln?</translation>
    </message>
</context>
<context>
    <name>fathom::studio::WorkspaceController</name>
    <message>
        <source>Reading the workspace</source>
        <translation>Lesen des Arbeitsbereichs</translation>
    </message>
    <message>
        <source>Reading run %1</source>
        <translation>Lesen von Lauf %1</translation>
    </message>
    <message>
        <source>Saving the comparison</source>
        <translation>Speichern des Vergleichs</translation>
    </message>
    <message>
        <source>No workspace is open.</source>
        <translation>Kein Arbeitsbereich ist geöffnet.</translation>
    </message>
    <message>
        <source>Comparing runs</source>
        <translation>Vergleichen der Läufe</translation>
    </message>
</context>
<context>
    <name>fathom::views::AlertsModel</name>
    <message>
        <source>hang</source>
        <translation>Hänger</translation>
    </message>
    <message>
        <source>straggler</source>
        <translation>Nachzügler</translation>
    </message>
    <message>
        <source>stalled %1 s</source>
        <translation>%1 s ohne Fortschritt</translation>
    </message>
    <message>
        <source>%1 s per step (others %2 s)</source>
        <translation>%1 s pro Schritt (andere %2 s)</translation>
    </message>
    <message>
        <source>open</source>
        <translation>offen</translation>
    </message>
    <message>
        <source>Raised</source>
        <translation>Gemeldet</translation>
    </message>
    <message>
        <source>Alert</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>Ranks behind</source>
        <translation>Zurückliegende Ränge</translation>
    </message>
    <message>
        <source>Waiting in</source>
        <translation>Wartet in</translation>
    </message>
    <message>
        <source>How long</source>
        <translation>Wie lange</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>resolved</source>
        <translation>behoben</translation>
    </message>
    <message>
        <source>open at the run&apos;s end</source>
        <translation>bei Laufende offen</translation>
    </message>
</context>
<context>
    <name>fathom::views::AreaNameModel</name>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Gesamt</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>Mittel</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>Max.</translation>
    </message>
</context>
<context>
    <name>fathom::views::AreaPanel</name>
    <message>
        <source>Rank / step</source>
        <translation>Rang / Schritt</translation>
    </message>
    <message>
        <source>Span</source>
        <translation>Spanne</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>Rechnen</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>Kommunikation</translation>
    </message>
    <message>
        <source>Exposed communication</source>
        <translation>Nicht verdeckte Kommunikation</translation>
    </message>
    <message>
        <source>Data loading</source>
        <translation>Laden der Daten</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>Leerlauf</translation>
    </message>
    <message>
        <source>No area selected:
Shift+drag over the timeline to select one</source>
        <translation>Kein Bereich ausgewählt:
Umschalt+Ziehen über die Zeitleiste wählt einen aus</translation>
    </message>
    <message>
        <source>%1 to %2 (%3) since the trace&apos;s start
%4 lanes: computing…</source>
        <translation>%1 bis %2 (%3) seit dem Start des Traces
%4 Spuren: wird berechnet…</translation>
    </message>
    <message>
        <source>%1 to %2 (%3) since the trace&apos;s start
%4 lanes: %5 slices</source>
        <translation>%1 bis %2 (%3) seit dem Start des Traces
%4 Spuren: %5 Abschnitte</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>all</source>
        <translation>alle</translation>
    </message>
    <message>
        <source>%1 · GPU timeline</source>
        <translation>%1 · GPU-Zeitleiste</translation>
    </message>
    <message>
        <source>%1 · CPU timeline</source>
        <translation>%1 · CPU-Zeitleiste</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>Schritt %1</translation>
    </message>
</context>
<context>
    <name>fathom::views::CheckpointsModel</name>
    <message>
        <source>Checkpoint</source>
        <translation>Checkpoint</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>Gespeichert</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Ordner</translation>
    </message>
    <message>
        <source>%1 no longer holds this checkpoint: deleted by --save_total_limit rotation or by hand.</source>
        <translation>%1 enthält diesen Checkpoint nicht mehr: gelöscht durch die Rotation von --save_total_limit oder von Hand.</translation>
    </message>
    <message>
        <source>%1 (deleted)</source>
        <translation>%1 (gelöscht)</translation>
    </message>
</context>
<context>
    <name>fathom::views::CollectivesModel</name>
    <message>
        <source>intra-node</source>
        <translation>innerhalb des Knotens</translation>
    </message>
    <message>
        <source>inter-node</source>
        <translation>zwischen Knoten</translation>
    </message>
    <message>
        <source>overlapped, every micro-step</source>
        <translation>überlappt, jeder Mikroschritt</translation>
    </message>
    <message>
        <source>overlapped</source>
        <translation>überlappt</translation>
    </message>
    <message>
        <source>exposed, every micro-step</source>
        <translation>sichtbar, jeder Mikroschritt</translation>
    </message>
    <message>
        <source>exposed</source>
        <translation>sichtbar</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>Kollektive Operation</translation>
    </message>
    <message>
        <source>Purpose</source>
        <translation>Zweck</translation>
    </message>
    <message>
        <source>Buffer bytes</source>
        <translation>Puffergröße</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>Aufrufe</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>Gruppe</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>Bereich</translation>
    </message>
    <message>
        <source>Sent per GPU</source>
        <translation>Gesendet pro GPU</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Overlap</source>
        <translation>Überlappung</translation>
    </message>
</context>
<context>
    <name>fathom::views::CommChart</name>
    <message>
        <source>Communication per optimizer step</source>
        <translation>Kommunikation pro Optimiererschritt</translation>
    </message>
    <message>
        <source>%1: not a valid plan</source>
        <translation>%1: kein gültiger Plan</translation>
    </message>
    <message>
        <source>%1: %2 sent per GPU, %3 of communication per step</source>
        <translation>%1: %2 pro GPU gesendet, %3 Kommunikation pro Schritt</translation>
    </message>
    <message>
        <source>Sent per GPU (%1)</source>
        <translation>Gesendet pro GPU (%1)</translation>
    </message>
    <message>
        <source>Communication time (s)</source>
        <translation>Kommunikationszeit (s)</translation>
    </message>
    <message>
        <source>%1 per GPU and step</source>
        <translation>%1 pro GPU und Schritt</translation>
    </message>
    <message>
        <source>Seconds per step</source>
        <translation>Sekunden pro Schritt</translation>
    </message>
</context>
<context>
    <name>fathom::views::ConfigDiffModel</name>
    <message>
        <source>Run %1: %2</source>
        <translation>Lauf %1: %2</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>(nicht gesetzt)</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Schlüssel</translation>
    </message>
</context>
<context>
    <name>fathom::views::ConfigWizard</name>
    <message>
        <source>New Run Configuration</source>
        <translation>Neue Laufkonfiguration</translation>
    </message>
    <message>
        <source>&amp;Launch</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>S&amp;peichern</translation>
    </message>
    <message>
        <source>Save the file and start the run on this machine</source>
        <translation>Datei speichern und den Lauf auf diesem Rechner starten</translation>
    </message>
    <message>
        <source>Run Configuration: %1</source>
        <translation>Laufkonfiguration: %1</translation>
    </message>
    <message>
        <source>Save Configuration</source>
        <translation>Konfiguration speichern</translation>
    </message>
    <message>
        <source>The configuration could not be saved to %1.</source>
        <translation>Die Konfiguration konnte nicht unter %1 gespeichert werden.</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>The planner predicts that this plan will not fit on %1 (see the planner panel). Launch anyway?</source>
        <translation>Der Planer sagt voraus, dass dieser Plan nicht auf %1 passt (siehe Planer). Trotzdem starten?</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it with this configuration?</source>
        <translation>%1 existiert bereits. Durch diese Konfiguration ersetzen?</translation>
    </message>
    <message>
        <source>&amp;Overwrite</source>
        <translation>&amp;Überschreiben</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceBars</name>
    <message>
        <source>%1 + %2 kept free</source>
        <translation>%1 + %2 freigehalten</translation>
    </message>
    <message>
        <source>%1 (no limit)</source>
        <translation>%1 (ohne Limit)</translation>
    </message>
    <message>
        <source>%1 of %2: over the limit</source>
        <translation>%1 von %2: über dem Limit</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>%1 holds %2 of the model.</source>
        <translation>%1 hält %2 des Modells.</translation>
    </message>
    <message>
        <source>It keeps %1 free for the largest layer on CPU or disk, which is brought to it to run.</source>
        <translation>Es hält %1 frei für die größte Schicht auf CPU oder Datenträger, die zum Ausführen hierher geholt wird.</translation>
    </message>
    <message>
        <source>Limit: %1.</source>
        <translation>Limit: %1.</translation>
    </message>
    <message>
        <source>No limit.</source>
        <translation>Kein Limit.</translation>
    </message>
    <message>
        <source>Drop a module here to move it to %1.</source>
        <translation>Legen Sie ein Modul hier ab, um es nach %1 zu verschieben.</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceLimitsEditor</name>
    <message>
        <source>Add GPU</source>
        <translation>GPU hinzufügen</translation>
    </message>
    <message>
        <source>Remove GPU</source>
        <translation>GPU entfernen</translation>
    </message>
    <message>
        <source>Disk: no limit, used last.</source>
        <translation>Datenträger: ohne Limit, zuletzt genutzt.</translation>
    </message>
    <message>
        <source>Limit of %1</source>
        <translation>Limit von %1</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceMapDocument</name>
    <message>
        <source>There is no device map to change.</source>
        <translation>Es gibt keine Device-Map, die sich ändern ließe.</translation>
    </message>
    <message>
        <source>%1 is not one of the devices.</source>
        <translation>%1 gehört nicht zu den Geräten.</translation>
    </message>
    <message>
        <source>%1 is no longer moved to %2: the device is gone.</source>
        <translation>%1 wird nicht mehr nach %2 verschoben: Das Gerät gibt es nicht mehr.</translation>
    </message>
    <message>
        <source>The model</source>
        <translation>Das Modell</translation>
    </message>
    <message>
        <source>There is no device map to export.</source>
        <translation>Es gibt keine Device-Map zum Exportieren.</translation>
    </message>
</context>
<context>
    <name>fathom::views::DeviceMapView</name>
    <message>
        <source>The same as balanced: Accelerate tells the two apart nowhere.</source>
        <translation>Dasselbe wie balanced: Accelerate unterscheidet die beiden nirgends.</translation>
    </message>
    <message>
        <source>Accelerate&apos;s balanced: the GPUs capped at an even share of the model, then filled in order.</source>
        <translation>Accelerates balanced: Jede GPU wird auf einen gleichen Anteil am Modell begrenzt und dann der Reihe nach gefüllt.</translation>
    </message>
    <message>
        <source>As balanced, with GPU 0 kept as empty as the other GPUs allow (room for generate&apos;s tensors).</source>
        <translation>Wie balanced, wobei GPU 0 so leer bleibt, wie es die anderen GPUs erlauben (Platz für die Tensoren von generate).</translation>
    </message>
    <message>
        <source>GPU 0 filled first, then GPU 1, …, then the CPU and the disk, within the limits as given.</source>
        <translation>Zuerst wird GPU 0 gefüllt, dann GPU 1, …, dann CPU und Datenträger, innerhalb der angegebenen Limits.</translation>
    </message>
    <message>
        <source>Fathom&apos;s: the smallest largest GPU load, offloading only what the GPUs cannot hold.</source>
        <translation>Fathoms eigene: die kleinste größte GPU-Last; ausgelagert wird nur, was die GPUs nicht fassen.</translation>
    </message>
    <message>
        <source>Move refused: %1</source>
        <translation>Verschieben abgelehnt: %1</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Devices and limits</source>
        <translation>Geräte und Limits</translation>
    </message>
    <message>
        <source>Planning</source>
        <translation>Planung</translation>
    </message>
    <message>
        <source>as stored</source>
        <translation>wie gespeichert</translation>
    </message>
    <message>
        <source>The dtype the weights are loaded in: floating-point tensors only ever shrink to it.</source>
        <translation>Der dtype, in dem die Gewichte geladen werden: Gleitkomma-Tensoren werden darauf höchstens verkleinert.</translation>
    </message>
    <message>
        <source>Modules of the checked classes are never split across devices.</source>
        <translation>Module der angehakten Klassen werden nie auf mehrere Geräte aufgeteilt.</translation>
    </message>
    <message>
        <source>Strategy:</source>
        <translation>Strategie:</translation>
    </message>
    <message>
        <source>Weights dtype:</source>
        <translation>dtype der Gewichte:</translation>
    </message>
    <message>
        <source>Keep whole (no split):</source>
        <translation>Ganz lassen (nicht aufteilen):</translation>
    </message>
    <message>
        <source>Reset Moves</source>
        <translation>Verschiebungen zurücksetzen</translation>
    </message>
    <message>
        <source>Forget the modules moved by hand: the strategy&apos;s map again.</source>
        <translation>Von Hand verschobene Module vergessen: wieder die Map der Strategie.</translation>
    </message>
    <message>
        <source>Export JSON…</source>
        <translation>JSON exportieren…</translation>
    </message>
    <message>
        <source>Hugging Face&apos;s device-map JSON, as from_pretrained(device_map=...) and accelerate.dispatch_model read it.</source>
        <translation>Das Device-Map-JSON von Hugging Face, wie es from_pretrained(device_map=...) und accelerate.dispatch_model lesen.</translation>
    </message>
    <message>
        <source>Drag a module onto a device&apos;s bar, or onto a module on another device, or pick its device in the Device column. Bold rows were moved by hand.</source>
        <translation>Ziehen Sie ein Modul auf den Balken eines Geräts oder auf ein Modul auf einem anderen Gerät, oder wählen Sie sein Gerät in der Spalte Gerät. Fett gesetzte Zeilen wurden von Hand verschoben.</translation>
    </message>
    <message>
        <source>%1: %2 modules, %3 as stored.</source>
        <translation>%1: %2 Module, %3 wie gespeichert.</translation>
    </message>
    <message>
        <source>No device map: %1</source>
        <translation>Keine Device-Map: %1</translation>
    </message>
    <message>
        <source>Moves no longer applied: %1</source>
        <translation>Nicht mehr angewandte Verschiebungen: %1</translation>
    </message>
    <message>
        <source>Open a model to plan its device map.</source>
        <translation>Öffnen Sie ein Modell, um seine Device-Map zu planen.</translation>
    </message>
    <message>
        <source>Balanced&apos;s largest GPU load: %1; optimal&apos;s is %2 lower.</source>
        <translation>Größte GPU-Last von balanced: %1; die von optimal ist %2 niedriger.</translation>
    </message>
    <message>
        <source>Moved by hand: %1.</source>
        <translation>Von Hand verschoben: %1.</translation>
    </message>
    <message>
        <source>Export Device Map</source>
        <translation>Device-Map exportieren</translation>
    </message>
    <message>
        <source>Device map JSON (*.json)</source>
        <translation>Device-Map-JSON (*.json)</translation>
    </message>
    <message>
        <source>Device map written to %1.</source>
        <translation>Device-Map nach %1 geschrieben.</translation>
    </message>
    <message>
        <source>Strategy %1. Largest GPU load: %2. Offloaded to CPU and disk: %3. Map entries: %4.</source>
        <translation>Strategie %1. Größte GPU-Last: %2. Auf CPU und Datenträger ausgelagert: %3. Einträge der Map: %4.</translation>
    </message>
    <message>
        <source>Open Model…</source>
        <translation>Modell öffnen…</translation>
    </message>
    <message>
        <source>A Hugging Face config.json (gpt2, llama, mistral, mixtral), a safetensors checkpoint or its index, or a module tree in JSON as `fathom device-map --print_tree` writes it.</source>
        <translation>Eine Hugging-Face-config.json (gpt2, llama, mistral, mixtral), ein safetensors-Checkpoint oder sein Index oder ein Modulbaum als JSON, wie ihn `fathom device-map --print_tree` schreibt.</translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>Modell öffnen</translation>
    </message>
    <message>
        <source>Parts of the recorded map could not be shown: %1</source>
        <translation>Teile der aufgezeichneten Map konnten nicht angezeigt werden: %1</translation>
    </message>
    <message>
        <source>This is the map %1 dispatched with; Reset Moves shows the strategy&apos;s plan.</source>
        <translation>Dies ist die Map, mit der %1 verteilt hat; „Verschiebungen zurücksetzen“ zeigt den Plan der Strategie.</translation>
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
<context>
    <name>fathom::views::EventLogModel</name>
    <message>
        <source>debug</source>
        <translation>Debug</translation>
    </message>
    <message>
        <source>info</source>
        <translation>Info</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>launcher</source>
        <translation>Launcher</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>Level</source>
        <translation>Stufe</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
</context>
<context>
    <name>fathom::views::HardwareEditor</name>
    <message>
        <source>Custom device, starting from this preset</source>
        <translation>Eigenes Gerät, ausgehend von dieser Vorlage</translation>
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
        <translation>Speicher:</translation>
    </message>
    <message>
        <source>Peak (bf16/fp16):</source>
        <translation>Spitze (bf16/fp16):</translation>
    </message>
    <message>
        <source>Peak (fp32):</source>
        <translation>Spitze (fp32):</translation>
    </message>
    <message>
        <source>GPUs per node:</source>
        <translation>GPUs pro Knoten:</translation>
    </message>
    <message>
        <source>Within a node:</source>
        <translation>Innerhalb eines Knotens:</translation>
    </message>
    <message>
        <source>Between nodes:</source>
        <translation>Zwischen Knoten:</translation>
    </message>
    <message>
        <source>Custom device based on %1</source>
        <translation>Eigenes Gerät auf Basis von %1</translation>
    </message>
</context>
<context>
    <name>fathom::views::HostGroupProxy</name>
    <message numerus="yes">
        <source>%1 (%n rank(s))</source>
        <translation>
            <numerusform>%1 (%n Rang)</numerusform>
            <numerusform>%1 (%n Ränge)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fathom::views::LiveRanksModel</name>
    <message>
        <source>exited</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>failed (exit code %1)</source>
        <translation>fehlgeschlagen (Exit-Code %1)</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Steps/s</source>
        <translation>Schritte/s</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>Gerätespeicher</translation>
    </message>
    <message>
        <source>Host memory</source>
        <translation>Hostspeicher</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>Phase</translation>
    </message>
    <message>
        <source>Last heartbeat</source>
        <translation>Letztes Lebenszeichen</translation>
    </message>
    <message>
        <source>Collective entered</source>
        <translation>Kollektiv begonnen</translation>
    </message>
    <message>
        <source>Collective finished</source>
        <translation>Kollektiv beendet</translation>
    </message>
</context>
<context>
    <name>fathom::views::MemoryChart</name>
    <message>
        <source>Memory per GPU by strategy</source>
        <translation>Speicher pro GPU nach Strategie</translation>
    </message>
    <message>
        <source>%1 · %2: %3</source>
        <translation>%1 · %2: %3</translation>
    </message>
    <message>
        <source>%1: not a valid plan</source>
        <translation>%1: kein gültiger Plan</translation>
    </message>
    <message>
        <source>%1 (invalid)</source>
        <translation>%1 (ungültig)</translation>
    </message>
    <message>
        <source>Device %1</source>
        <translation>Gerät %1</translation>
    </message>
    <message>
        <source>GiB per GPU</source>
        <translation>GiB pro GPU</translation>
    </message>
</context>
<context>
    <name>fathom::views::MemoryTimeline</name>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>%1 (profiler, %2)</source>
        <translation>%1 (Profiler, %2)</translation>
    </message>
    <message>
        <source>%1 (offloaded to host)</source>
        <translation>%1 (auf den Host ausgelagert)</translation>
    </message>
    <message>
        <source>Rank %1, step %2</source>
        <translation>Rang %1, Schritt %2</translation>
    </message>
    <message>
        <source>%1: measured %2</source>
        <translation>%1: gemessen %2</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>exakt</translation>
    </message>
    <message>
        <source>%1: measured %2, planned %3 (%4)</source>
        <translation>%1: gemessen %2, geplant %3 (%4)</translation>
    </message>
    <message>
        <source>%1: planned %2</source>
        <translation>%1: geplant %2</translation>
    </message>
    <message>
        <source>%1, planned</source>
        <translation>%1, geplant</translation>
    </message>
</context>
<context>
    <name>fathom::views::MetricPlot</name>
    <message>
        <source>mean (band: min–max over ranks)</source>
        <translation>Mittelwert (Band: Min–Max über die Ränge)</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1, %2</translation>
    </message>
    <message>
        <source>min–max</source>
        <translation>Min–Max</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Seconds since the run&apos;s first point</source>
        <translation>Sekunden seit dem ersten Punkt des Laufs</translation>
    </message>
    <message>
        <source>%1: %2 at %3</source>
        <translation>%1: %2 bei %3</translation>
    </message>
    <message>
        <source> (smoothed %1)</source>
        <translation> (geglättet %1)</translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation>%1 kann nicht geschrieben werden.</translation>
    </message>
</context>
<context>
    <name>fathom::views::MetricPlotPanel</name>
    <message>
        <source>The metric to plot</source>
        <translation>Die darzustellende Metrik</translation>
    </message>
    <message>
        <source>Per rank</source>
        <translation>Je Rang</translation>
    </message>
    <message>
        <source>Mean, min–max band</source>
        <translation>Mittelwert, Min–Max-Band</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Wall time</source>
        <translation>Uhrzeit</translation>
    </message>
    <message>
        <source>Exponential smoothing, debiased as in TensorBoard</source>
        <translation>Exponentielle Glättung, entzerrt wie in TensorBoard</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>Log-Skala</translation>
    </message>
    <message>
        <source>Show all</source>
        <translation>Alles zeigen</translation>
    </message>
    <message>
        <source>Zoom out to every point (Home; the wheel zooms, dragging pans)</source>
        <translation>Auf alle Punkte herauszoomen (Pos1; das Mausrad zoomt, Ziehen verschiebt)</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Save the plot as PNG or SVG, or its points as CSV</source>
        <translation>Das Diagramm als PNG oder SVG speichern, oder seine Punkte als CSV</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>Metrik</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>Glättung</translation>
    </message>
    <message>
        <source>Export Plot</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG image (*.svg);;CSV points (*.csv)</source>
        <translation>PNG-Bild (*.png);;SVG-Bild (*.svg);;CSV-Punkte (*.csv)</translation>
    </message>
</context>
<context>
    <name>fathom::views::MetricSummaryModel</name>
    <message>
        <source>Metric</source>
        <translation>Metrik</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>Punkte</translation>
    </message>
    <message>
        <source>Last</source>
        <translation>Letzter Wert</translation>
    </message>
    <message>
        <source>At step</source>
        <translation>Bei Schritt</translation>
    </message>
    <message>
        <source>Minimum</source>
        <translation>Minimum</translation>
    </message>
    <message>
        <source>Maximum</source>
        <translation>Maximum</translation>
    </message>
</context>
<context>
    <name>fathom::views::ModelSourceEditor</name>
    <message>
        <source>Built-in model</source>
        <translation>Eingebautes Modell</translation>
    </message>
    <message>
        <source>Transformer dimensions</source>
        <translation>Transformer-Dimensionen</translation>
    </message>
    <message>
        <source>Hugging Face config.json</source>
        <translation>Hugging-Face-config.json</translation>
    </message>
    <message>
        <source>Parameter count</source>
        <translation>Parameteranzahl</translation>
    </message>
    <message>
        <source>config.json, or the folder holding it</source>
        <translation>config.json oder der Ordner, der sie enthält</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Hugging Face model configuration</source>
        <translation>Hugging-Face-Modellkonfiguration</translation>
    </message>
    <message>
        <source>Model configuration (config.json *.json)</source>
        <translation>Modellkonfiguration (config.json *.json)</translation>
    </message>
    <message>
        <source> billion</source>
        <translation> Mrd.</translation>
    </message>
    <message>
        <source>Parameters:</source>
        <translation>Parameter:</translation>
    </message>
    <message>
        <source>Layers (n_layer):</source>
        <translation>Schichten (n_layer):</translation>
    </message>
    <message>
        <source>Heads (n_head):</source>
        <translation>Köpfe (n_head):</translation>
    </message>
    <message>
        <source>Width (n_embd):</source>
        <translation>Breite (n_embd):</translation>
    </message>
    <message>
        <source>Context (block_size):</source>
        <translation>Kontext (block_size):</translation>
    </message>
    <message>
        <source>Vocabulary (vocab_size):</source>
        <translation>Vokabular (vocab_size):</translation>
    </message>
    <message>
        <source>Width (hidden):</source>
        <translation>Breite (hidden):</translation>
    </message>
    <message>
        <source>Blocks (layers):</source>
        <translation>Blöcke (layers):</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Eigene</translation>
    </message>
    <message>
        <source>GPT (GPT-2 style)</source>
        <translation>GPT (GPT-2-Stil)</translation>
    </message>
    <message>
        <source>Llama (RoPE, SwiGLU, GQA)</source>
        <translation>Llama (RoPE, SwiGLU, GQA)</translation>
    </message>
    <message>
        <source>BERT encoder</source>
        <translation>BERT-Encoder</translation>
    </message>
    <message>
        <source>T5 encoder-decoder</source>
        <translation>T5-Encoder-Decoder</translation>
    </message>
    <message>
        <source>as heads</source>
        <translation>wie Köpfe</translation>
    </message>
    <message>
        <source>derived</source>
        <translation>abgeleitet</translation>
    </message>
    <message>
        <source>default</source>
        <translation>Standard</translation>
    </message>
    <message>
        <source>Output layer shares the input embedding</source>
        <translation>Ausgabeschicht teilt die Eingabe-Einbettung</translation>
    </message>
    <message>
        <source>Preset:</source>
        <translation>Vorlage:</translation>
    </message>
    <message>
        <source>Family:</source>
        <translation>Familie:</translation>
    </message>
    <message>
        <source>Layers:</source>
        <translation>Schichten:</translation>
    </message>
    <message>
        <source>Hidden size:</source>
        <translation>Modellbreite:</translation>
    </message>
    <message>
        <source>Attention heads:</source>
        <translation>Attention-Köpfe:</translation>
    </message>
    <message>
        <source>Key/value heads:</source>
        <translation>Key/Value-Köpfe:</translation>
    </message>
    <message>
        <source>MLP width:</source>
        <translation>MLP-Breite:</translation>
    </message>
    <message>
        <source>Vocabulary:</source>
        <translation>Vokabular:</translation>
    </message>
    <message>
        <source>Positions:</source>
        <translation>Positionen:</translation>
    </message>
    <message>
        <source>Dropout (dropout):</source>
        <translation>Dropout (dropout):</translation>
    </message>
</context>
<context>
    <name>fathom::views::ModuleTreeModel</name>
    <message>
        <source>(model)</source>
        <translation>(Modell)</translation>
    </message>
    <message>
        <source>%1 (%2): %3 on %4.
Drag it onto a device bar, or onto a module on another device, to move it there.</source>
        <translation>%1 (%2): %3 auf %4.
Ziehen Sie es auf den Balken eines Geräts oder auf ein Modul auf einem anderen Gerät, um es dorthin zu verschieben.</translation>
    </message>
    <message>
        <source>the model</source>
        <translation>das Modell</translation>
    </message>
    <message>
        <source>no device</source>
        <translation>kein Gerät</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>Modul</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>Klasse</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
</context>
<context>
    <name>fathom::views::PlanSearchModel</name>
    <message>
        <source>, sequence parallel</source>
        <translation>, Sequenzparallelität</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>selektiv</translation>
    </message>
    <message>
        <source>full</source>
        <translation>vollständig</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
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
        <translation>Mikro-Batch</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>Akkumulation</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>Neuberechnung</translation>
    </message>
    <message>
        <source>Memory per GPU</source>
        <translation>Speicher pro GPU</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>Schrittzeit</translation>
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
        <translation>Schrittzeit</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>Berechnung</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>Kommunikation</translation>
    </message>
    <message>
        <source>Exposed communication</source>
        <translation>Nicht verdeckte Kommunikation</translation>
    </message>
    <message>
        <source>+%1 ms</source>
        <translation>+%1 ms</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>Per step</source>
        <translation>Pro Schritt</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>Gemessen</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>Vorhergesagt</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>Differenz</translation>
    </message>
</context>
<context>
    <name>fathom::views::PlanVsActualModel</name>
    <message>
        <source>Peak activations</source>
        <translation>Aktivierungen (Spitze)</translation>
    </message>
    <message>
        <source>Total (profiled peak)</source>
        <translation>Gesamt (Spitze im Profil)</translation>
    </message>
    <message>
        <source>%1 per step</source>
        <translation>%1 pro Schritt</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>Schrittzeit</translation>
    </message>
    <message>
        <source>%1 calls, %2</source>
        <translation>%1 Aufrufe, %2</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>exakt</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>Quantity</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>Vorhergesagt</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>Gemessen</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>Differenz</translation>
    </message>
</context>
<context>
    <name>fathom::views::PlannerPanel</name>
    <message>
        <source>Planner</source>
        <translation>Planer</translation>
    </message>
    <message>
        <source>Updating…</source>
        <translation>Wird aktualisiert…</translation>
    </message>
    <message>
        <source>Memory per GPU</source>
        <translation>Speicher pro GPU</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Gesamt</translation>
    </message>
    <message>
        <source>Communication per step</source>
        <translation>Kommunikation pro Schritt</translation>
    </message>
    <message>
        <source>Sent per GPU</source>
        <translation>Gesendet pro GPU</translation>
    </message>
    <message>
        <source>Time (exposed)</source>
        <translation>Zeit (sichtbar)</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>Schrittzeit</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>The prediction appears here as you edit the configuration.</source>
        <translation>Die Vorhersage erscheint hier, während Sie die Konfiguration bearbeiten.</translation>
    </message>
    <message>
        <source>The planner cannot evaluate this configuration: %1</source>
        <translation>Der Planer kann diese Konfiguration nicht bewerten: %1</translation>
    </message>
    <message>
        <source>%1 (%2 parameters)&lt;br&gt;%3 × %4&lt;br&gt;%5, %6, micro-batch %7 × %8</source>
        <translation>%1 (%2 Parameter)&lt;br&gt;%3 × %4&lt;br&gt;%5, %6, Mikro-Batch %7 × %8</translation>
    </message>
    <message>
        <source>This plan is not valid: %1</source>
        <translation>Dieser Plan ist nicht gültig: %1</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>This plan will not fit: it needs %1 per GPU and the device has %2. Shard with FSDP or ZeRO-3, add GPUs, recompute activations or lower the micro-batch.</source>
        <translation>Dieser Plan passt nicht: Er braucht %1 pro GPU, das Gerät hat %2. Sharden Sie mit FSDP oder ZeRO-3, nehmen Sie mehr GPUs, berechnen Sie Aktivierungen neu oder verkleinern Sie den Mikro-Batch.</translation>
    </message>
    <message>
        <source>This plan will not fit: the offloaded states need %1 of host memory per node.</source>
        <translation>Dieser Plan passt nicht: Die ausgelagerten Zustände brauchen %1 Hauptspeicher pro Knoten.</translation>
    </message>
    <message>
        <source>one process</source>
        <translation>ein Prozess</translation>
    </message>
</context>
<context>
    <name>fathom::views::RanksModel</name>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Exit code</source>
        <translation>Exit-Code</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunComparisonPage</name>
    <message>
        <source>Summary</source>
        <translation>Zusammenfassung</translation>
    </message>
    <message>
        <source>Configuration differences</source>
        <translation>Konfigurationsunterschiede</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>%1 (run %2)</source>
        <translation>%1 (Lauf %2)</translation>
    </message>
    <message>
        <source>The configuration of run %1 could not be read: %2</source>
        <translation>Die Konfiguration von Lauf %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Comparing %1</source>
        <translation>Vergleich von %1</translation>
    </message>
    <message>
        <source>The runs&apos; configurations are the same.</source>
        <translation>Die Konfigurationen der Läufe sind gleich.</translation>
    </message>
    <message>
        <source>Keys that differ: %1 (the keys every run sets alike are left out).</source>
        <translation>Abweichende Schlüssel: %1 (Schlüssel, die alle Läufe gleich setzen, sind ausgelassen).</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunDetailsPage</name>
    <message>
        <source>Metrics</source>
        <translation>Metriken</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>Ränge</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Launch configuration</source>
        <translation>Startkonfiguration</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source> (exit code %1)</source>
        <translation> (Exit-Code %1)</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Ended</source>
        <translation>Beendet</translation>
    </message>
    <message>
        <source>%1, after %2</source>
        <translation>%1, nach %2</translation>
    </message>
    <message>
        <source>World size</source>
        <translation>Weltgröße</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>Endverlust</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>Host</translation>
    </message>
    <message>
        <source>%1 (launcher pid %2)</source>
        <translation>%1 (Launcher-PID %2)</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>Run %1: %2</source>
        <translation>Lauf %1: %2</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>Warnungen</translation>
    </message>
    <message>
        <source>Compute the plan</source>
        <translation>Plan berechnen</translation>
    </message>
    <message>
        <source>Computing the plan…</source>
        <translation>Plan wird berechnet…</translation>
    </message>
    <message>
        <source>Plan vs actual</source>
        <translation>Plan und Ist</translation>
    </message>
    <message>
        <source>The plan made when the run was launched, against what each rank measured (exact where equal, else measured − predicted).</source>
        <translation>Der beim Start des Laufs erstellte Plan im Vergleich zu den Messungen jedes Rangs (exakt bei Gleichheit, sonst gemessen − vorhergesagt).</translation>
    </message>
    <message>
        <source>A plan computed after the run, against what each rank measured (exact where equal, else measured − predicted).</source>
        <translation>Ein nach dem Lauf berechneter Plan im Vergleich zu den Messungen jedes Rangs (exakt bei Gleichheit, sonst gemessen − vorhergesagt).</translation>
    </message>
    <message>
        <source>The stored plan could not be compared: %1</source>
        <translation>Der gespeicherte Plan konnte nicht verglichen werden: %1</translation>
    </message>
    <message>
        <source>This run was launched without a plan.</source>
        <translation>Dieser Lauf wurde ohne Plan gestartet.</translation>
    </message>
    <message>
        <source>Computing the plan failed: %1</source>
        <translation>Berechnen des Plans fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Alerts (%1 open)</source>
        <translation>Warnungen (%1 offen)</translation>
    </message>
    <message>
        <source>Memory over time of rank</source>
        <translation>Speicherverlauf von Rang</translation>
    </message>
    <message>
        <source>solid: measured, dashed: planned</source>
        <translation>durchgezogen: gemessen, gestrichelt: geplant</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>Zeitleiste</translation>
    </message>
    <message>
        <source>Resume from this checkpoint</source>
        <translation>Von diesem Checkpoint fortsetzen</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>Checkpoints</translation>
    </message>
    <message>
        <source>This run was not started from a configuration (fathom launch records one), so the Studio cannot start it again.</source>
        <translation>Dieser Lauf wurde nicht aus einer Konfiguration gestartet (fathom launch speichert eine), daher kann das Studio ihn nicht erneut starten.</translation>
    </message>
    <message>
        <source>Starts the run&apos;s configuration again with --resume_from_checkpoint and the selected checkpoint: training continues from its step.</source>
        <translation>Startet die Konfiguration des Laufs erneut mit --resume_from_checkpoint und dem ausgewählten Checkpoint: Das Training wird ab dessen Schritt fortgesetzt.</translation>
    </message>
    <message>
        <source>SLURM job</source>
        <translation>SLURM-Job</translation>
    </message>
    <message>
        <source>%1 (queue state unknown: SLURM cannot be asked from here)</source>
        <translation>%1 (Warteschlangenstatus unbekannt: SLURM ist von hier aus nicht erreichbar)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Device map…</source>
        <translation>Device-Map…</translation>
    </message>
    <message>
        <source>The device map this run&apos;s program dispatched its model with, in the device-map view: where each module went and what each device held.</source>
        <translation>Die Device-Map, mit der das Programm dieses Laufs sein Modell verteilt hat, in der Device-Map-Ansicht: wohin jedes Modul ging und was jedes Gerät hielt.</translation>
    </message>
    <message>
        <source>Run %1, rank %2</source>
        <translation>Lauf %1, Rang %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1 (recorded %2)</source>
        <translation>%1 (aufgezeichnet %2)</translation>
    </message>
    <message>
        <source>Calibrate from this run</source>
        <translation>Anhand dieses Laufs kalibrieren</translation>
    </message>
    <message>
        <source>Reading the run&apos;s traces…</source>
        <translation>Traces des Laufs werden gelesen…</translation>
    </message>
    <message>
        <source>Calibrating from this run failed: %1</source>
        <translation>Kalibrieren anhand dieses Laufs fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Hardware fit %1 of this run could not be read: %2</source>
        <translation>Die Hardware-Anpassung %1 dieses Laufs konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Fit this machine&apos;s calibrated hardware profile to the run&apos;s profiled traces (fathom plan --calibrate_from); later plans of this machine at the run&apos;s processes and threads use the fit</source>
        <translation>Das kalibrierte Hardwareprofil dieser Maschine an die profilierten Traces des Laufs anpassen (fathom plan --calibrate_from); spätere Pläne dieser Maschine mit den Prozessen und Threads des Laufs verwenden die Anpassung</translation>
    </message>
    <message>
        <source>Calibrated from this run (hardware fit %1): step time measured %L2 s, predicted %L3 s by the calibration alone and %L4 s after the fit. Measured / predicted: %5. Later plans of this machine at this run&apos;s processes and threads use the fit.</source>
        <translation>Anhand dieses Laufs kalibriert (Hardware-Anpassung %1): Schrittzeit gemessen %L2 s, vorhergesagt %L3 s allein mit der Kalibrierung und %L4 s nach der Anpassung. Gemessen / vorhergesagt: %5. Spätere Pläne dieser Maschine mit den Prozessen und Threads dieses Laufs verwenden die Anpassung.</translation>
    </message>
    <message>
        <source>Calibrated from this run at %1 (hardware fit %2): step time measured %L3 s over %4 profiled steps. Measured / predicted: %5. Plans of this machine at this run&apos;s processes and threads use its newest fit.</source>
        <translation>Am %1 anhand dieses Laufs kalibriert (Hardware-Anpassung %2): Schrittzeit gemessen %L3 s über %4 profilierte Schritte. Gemessen / vorhergesagt: %5. Pläne dieser Maschine mit den Prozessen und Threads dieses Laufs verwenden ihre neueste Anpassung.</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunSummaryModel</name>
    <message>
        <source>Run %1: %2</source>
        <translation>Lauf %1: %2</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>World size</source>
        <translation>Weltgröße</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Steps/s</source>
        <translation>Schritte/s</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>Endverlust</translation>
    </message>
    <message>
        <source>Last step</source>
        <translation>Letzter Schritt</translation>
    </message>
    <message>
        <source>Peak device memory per rank</source>
        <translation>Spitzen-Gerätespeicher je Rang</translation>
    </message>
    <message>
        <source>Peak host memory per rank</source>
        <translation>Spitzen-Hostspeicher je Rang</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunTimelinePage</name>
    <message>
        <source>Trace</source>
        <translation>Trace</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message numerus="yes">
        <source>Whole run: %n window(s), all ranks</source>
        <translation>
            <numerusform>Ganzer Lauf: %n Fenster, alle Ränge</numerusform>
            <numerusform>Ganzer Lauf: %n Fenster, alle Ränge</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Window %1: %n rank(s)</source>
        <translation>
            <numerusform>Fenster %1: %n Rang</numerusform>
            <numerusform>Fenster %1: %n Ränge</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>All ranks (%n)</source>
        <translation>
            <numerusform>Alle Ränge (%n)</numerusform>
            <numerusform>Alle Ränge (%n)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n rank(s)</source>
        <translation>
            <numerusform>%1: %n Rang</numerusform>
            <numerusform>%1: %n Ränge</numerusform>
        </translation>
    </message>
    <message>
        <source>Rank %1: %2</source>
        <translation>Rang %1: %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 (rank %2): %n chunk(s) stored</source>
        <translation>
            <numerusform>%1 (Rang %2): %n Block gespeichert</numerusform>
            <numerusform>%1 (Rang %2): %n Blöcke gespeichert</numerusform>
        </translation>
    </message>
    <message>
        <source>Shown merged on one clock, as `fathom trace merge` merges the files</source>
        <translation>Zusammengeführt auf einer Uhr angezeigt, so wie `fathom trace merge` die Dateien zusammenführt</translation>
    </message>
    <message>
        <source>No trace yet: the run&apos;s profiler stores each window&apos;s trace when the window ends.</source>
        <translation>Noch kein Trace: Der Profiler des Laufs speichert den Trace jedes Fensters, wenn das Fenster endet.</translation>
    </message>
    <message>
        <source>This run stored no trace. Profile a run (fathom train --profile) to see its timeline.</source>
        <translation>Dieser Lauf hat keinen Trace gespeichert. Profilieren Sie einen Lauf (fathom train --profile), um seine Zeitleiste zu sehen.</translation>
    </message>
    <message>
        <source>Choose a trace.</source>
        <translation>Wählen Sie einen Trace.</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Wird geladen…</translation>
    </message>
    <message numerus="yes">
        <source>%1 slices from %n stored trace(s) (%2), read in %3 ms</source>
        <translation>
            <numerusform>%1 Abschnitte aus %n gespeicherten Trace (%2), gelesen in %3 ms</numerusform>
            <numerusform>%1 Abschnitte aus %n gespeicherten Traces (%2), gelesen in %3 ms</numerusform>
        </translation>
    </message>
    <message>
        <source>; a trace is still being written: its complete events are shown</source>
        <translation>; ein Trace wird noch geschrieben: Seine vollständigen Ereignisse werden angezeigt</translation>
    </message>
    <message>
        <source>; live: updates as the run stores traces</source>
        <translation>; live: wird aktualisiert, sobald der Lauf Traces speichert</translation>
    </message>
    <message>
        <source>Reading the trace failed: %1</source>
        <translation>Lesen des Traces fehlgeschlagen: %1</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunsBrowser</name>
    <message>
        <source>Filter runs (Ctrl+F)</source>
        <translation>Läufe filtern (Strg+F)</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>Alle Status</translation>
    </message>
    <message>
        <source>No workspace open.</source>
        <translation>Kein Arbeitsbereich geöffnet.</translation>
    </message>
    <message>
        <source>No run matches the filter.</source>
        <translation>Kein Lauf passt zum Filter.</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>Vergleichen</translation>
    </message>
    <message>
        <source>Select two or more runs (Ctrl+click) to compare their metrics, configurations and summaries</source>
        <translation>Zwei oder mehr Läufe auswählen (Strg+Klick), um ihre Metriken, Konfigurationen und Zusammenfassungen zu vergleichen</translation>
    </message>
</context>
<context>
    <name>fathom::views::RunsModel</name>
    <message>
        <source>Single process</source>
        <translation>Einzelprozess</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>erfolgreich</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>verloren</translation>
    </message>
    <message>
        <source>%1 (exit code %2)</source>
        <translation>%1 (Exit-Code %2)</translation>
    </message>
    <message>
        <source>%1 so far</source>
        <translation>bisher %1</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>World size</source>
        <translation>Weltgröße</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>Endverlust</translation>
    </message>
    <message>
        <source>%1 (open)</source>
        <translation>%1 (offen)</translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation>Warnungen</translation>
    </message>
</context>
<context>
    <name>fathom::views::SavedPlansModel</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>Gespeichert</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>Hardware</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Fitting</source>
        <translation>Passend</translation>
    </message>
    <message>
        <source>Fastest fitting</source>
        <translation>Schnellste passende</translation>
    </message>
</context>
<context>
    <name>fathom::views::ScalingChart</name>
    <message>
        <source>Memory per GPU as the GPU count grows</source>
        <translation>Speicher pro GPU bei wachsender GPU-Anzahl</translation>
    </message>
    <message>
        <source>Step time as the GPU count grows</source>
        <translation>Schrittzeit bei wachsender GPU-Anzahl</translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): not a valid plan</source>
        <translation>
            <numerusform>%1 auf %n GPU: kein gültiger Plan</numerusform>
            <numerusform>%1 auf %n GPUs: kein gültiger Plan</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): %2 per GPU</source>
        <translation>
            <numerusform>%1 auf %n GPU: %2 pro GPU</numerusform>
            <numerusform>%1 auf %n GPUs: %2 pro GPU</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 on %n GPU(s): %2 per step</source>
        <translation>
            <numerusform>%1 auf %n GPU: %2 pro Schritt</numerusform>
            <numerusform>%1 auf %n GPUs: %2 pro Schritt</numerusform>
        </translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>Gerätespeicher</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>GiB per GPU</source>
        <translation>GiB pro GPU</translation>
    </message>
    <message>
        <source>Seconds per step</source>
        <translation>Sekunden pro Schritt</translation>
    </message>
</context>
<context>
    <name>fathom::views::SliceDetailsPanel</name>
    <message>
        <source>Category</source>
        <translation>Kategorie</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Beginn</translation>
    </message>
    <message>
        <source>Trace clock (ts)</source>
        <translation>Trace-Uhr (ts)</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Self time</source>
        <translation>Eigenzeit</translation>
    </message>
    <message>
        <source>Depth</source>
        <translation>Tiefe</translation>
    </message>
    <message>
        <source>Lane</source>
        <translation>Spur</translation>
    </message>
    <message>
        <source>Argument</source>
        <translation>Argument</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Linked slices</source>
        <translation>Verknüpfte Abschnitte</translation>
    </message>
    <message>
        <source>No slice selected: click one on the timeline</source>
        <translation>Kein Abschnitt ausgewählt: Klicken Sie auf einen in der Zeitleiste</translation>
    </message>
    <message>
        <source>%1 since the trace&apos;s start</source>
        <translation>%1 seit dem Start des Traces</translation>
    </message>
    <message>
        <source>Reading the event…</source>
        <translation>Ereignis wird gelesen…</translation>
    </message>
    <message>
        <source>The trace cannot be read again (it was loaded from a stream).</source>
        <translation>Der Trace kann nicht erneut gelesen werden (er wurde aus einem Datenstrom geladen).</translation>
    </message>
    <message>
        <source>Could not read the event: %1</source>
        <translation>Das Ereignis konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>(no arguments)</source>
        <translation>(keine Argumente)</translation>
    </message>
    <message>
        <source>%1 (%2, %3)</source>
        <translation>%1 (%2, %3)</translation>
    </message>
    <message>
        <source>… and %1 more</source>
        <translation>… und %1 weitere</translation>
    </message>
    <message>
        <source>Flows out (%1)</source>
        <translation>Ausgehende Flüsse (%1)</translation>
    </message>
    <message>
        <source>Launched by (%1)</source>
        <translation>Gestartet von (%1)</translation>
    </message>
    <message>
        <source>Flows in (%1)</source>
        <translation>Eingehende Flüsse (%1)</translation>
    </message>
    <message>
        <source>Launched GPU work (%1)</source>
        <translation>Gestartete GPU-Arbeit (%1)</translation>
    </message>
</context>
<context>
    <name>fathom::views::StepAlignmentCanvas</name>
    <message>
        <source>No ProfilerStep spans in this trace</source>
        <translation>Keine ProfilerStep-Spannen in diesem Trace</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>Rang %1</translation>
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
        <translation>Schritt:</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Collective</source>
        <translation>Kollektive Operation</translation>
    </message>
    <message>
        <source>First to arrive</source>
        <translation>Zuerst angekommen</translation>
    </message>
    <message>
        <source>Last to arrive</source>
        <translation>Zuletzt angekommen</translation>
    </message>
    <message>
        <source>Lag of the last</source>
        <translation>Verzug des Letzten</translation>
    </message>
    <message>
        <source>Spread</source>
        <translation>Streuung</translation>
    </message>
    <message>
        <source>Measured on rank:</source>
        <translation>Gemessen auf Rang:</translation>
    </message>
    <message>
        <source>&lt;b&gt;Measured vs predicted&lt;/b&gt;</source>
        <translation>&lt;b&gt;Gemessen und vorhergesagt&lt;/b&gt;</translation>
    </message>
    <message>
        <source>ProfilerStep#%1</source>
        <translation>ProfilerStep#%1</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>No ProfilerStep spans in this trace.</source>
        <translation>Keine ProfilerStep-Spannen in diesem Trace.</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s); %1 collective(s); the ranks&apos; ends differ by %2.</source>
        <translation>
            <numerusform>%n Rang; %1 kollektive Operation(en); die Enden der Ränge liegen %2 auseinander.</numerusform>
            <numerusform>%n Ränge; %1 kollektive Operation(en); die Enden der Ränge liegen %2 auseinander.</numerusform>
        </translation>
    </message>
    <message>
        <source> (not on every rank alike)</source>
        <translation> (nicht auf jedem Rang gleich)</translation>
    </message>
</context>
<context>
    <name>fathom::views::StrategyComparisonModel</name>
    <message>
        <source>invalid plan</source>
        <translation>ungültiger Plan</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Total per GPU</source>
        <translation>Gesamt pro GPU</translation>
    </message>
    <message>
        <source>Headroom</source>
        <translation>Reserve</translation>
    </message>
    <message>
        <source>Sent per GPU and step</source>
        <translation>Gesendet pro GPU und Schritt</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>Schrittzeit</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
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
        <translation>Bereich als Chrome-Trace exportieren…</translation>
    </message>
    <message>
        <source>Write the selected time range (else the visible one) as a trace Perfetto opens</source>
        <translation>Den ausgewählten Zeitbereich (sonst den sichtbaren) als Trace schreiben, den Perfetto öffnet</translation>
    </message>
    <message>
        <source>Export View as PNG…</source>
        <translation>Ansicht als PNG exportieren…</translation>
    </message>
    <message>
        <source>Export View as SVG…</source>
        <translation>Ansicht als SVG exportieren…</translation>
    </message>
    <message>
        <source>Export Range</source>
        <translation>Bereich exportieren</translation>
    </message>
    <message>
        <source>An export is already running.</source>
        <translation>Es läuft bereits ein Export.</translation>
    </message>
    <message>
        <source>No trace is loaded.</source>
        <translation>Es ist kein Trace geladen.</translation>
    </message>
    <message>
        <source>The trace %1 is not a file that can be read again.</source>
        <translation>Der Trace %1 ist keine Datei, die erneut gelesen werden kann.</translation>
    </message>
    <message>
        <source>The range to export is empty.</source>
        <translation>Der zu exportierende Bereich ist leer.</translation>
    </message>
    <message>
        <source>Writing %1…</source>
        <translation>%1 wird geschrieben…</translation>
    </message>
    <message>
        <source>Export of %1 cancelled.</source>
        <translation>Export von %1 abgebrochen.</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Fathom trace timeline</source>
        <translation>Fathom-Trace-Zeitleiste</translation>
    </message>
    <message>
        <source>Export Range as Chrome Trace</source>
        <translation>Bereich als Chrome-Trace exportieren</translation>
    </message>
    <message>
        <source>Chrome trace, compressed (*.json.gz);;Chrome trace (*.json)</source>
        <translation>Chrome-Trace, komprimiert (*.json.gz);;Chrome-Trace (*.json)</translation>
    </message>
    <message>
        <source>Export View as SVG</source>
        <translation>Ansicht als SVG exportieren</translation>
    </message>
    <message>
        <source>Export View as PNG</source>
        <translation>Ansicht als PNG exportieren</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG-Bild (*.svg)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG-Bild (*.png)</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelineMinimap</name>
    <message>
        <source>The whole trace: click to move the view there, drag the box to pan, drag its edges to zoom</source>
        <translation>Der ganze Trace: Klicken verschiebt die Ansicht dorthin, Ziehen des Rahmens verschiebt, Ziehen seiner Kanten zoomt</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelinePage</name>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Area</source>
        <translation>Bereich</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelineSearchBar</name>
    <message>
        <source>Search slices by name (Ctrl+F)</source>
        <translation>Slices nach Namen suchen (Strg+F)</translation>
    </message>
    <message>
        <source>Regular expression (ECMAScript)</source>
        <translation>Regulärer Ausdruck (ECMAScript)</translation>
    </message>
    <message>
        <source>Match case</source>
        <translation>Groß-/Kleinschreibung beachten</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>Zurück</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>Vorheriger Treffer (Umschalt+Eingabe)</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>Weiter</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>Nächster Treffer (Eingabe)</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Suche läuft…</translation>
    </message>
    <message>
        <source>No matches</source>
        <translation>Keine Treffer</translation>
    </message>
    <message>
        <source>1 match</source>
        <translation>1 Treffer</translation>
    </message>
    <message>
        <source>%1 matches</source>
        <translation>%1 Treffer</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>Next and Previous visit the first %1 matches</source>
        <translation>Weiter und Zurück besuchen die ersten %1 Treffer</translation>
    </message>
</context>
<context>
    <name>fathom::views::TimelineView</name>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Could not load the trace %1: %2</source>
        <translation>Der Trace %1 konnte nicht geladen werden: %2</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <source>No trace loaded</source>
        <translation>Kein Trace geladen</translation>
    </message>
    <message>
        <source>since start, %1 shown</source>
        <translation>seit dem Start, %1 sichtbar</translation>
    </message>
    <message>
        <source>trace clock, %1 shown</source>
        <translation>Trace-Uhr, %1 sichtbar</translation>
    </message>
    <message>
        <source>%1
duration %2, start %3</source>
        <translation>%1
Dauer %2, Beginn %3</translation>
    </message>
    <message>
        <source>%1
instant at %2</source>
        <translation>%1
Zeitpunkt-Ereignis bei %2</translation>
    </message>
    <message>
        <source>%1: %2 in total</source>
        <translation>%1: %2 insgesamt</translation>
    </message>
    <message>
        <source>Move Up</source>
        <translation>Nach oben</translation>
    </message>
    <message>
        <source>Move Down</source>
        <translation>Nach unten</translation>
    </message>
    <message>
        <source>Move to Top</source>
        <translation>Ganz nach oben</translation>
    </message>
    <message>
        <source>Expand</source>
        <translation>Aufklappen</translation>
    </message>
    <message>
        <source>Collapse</source>
        <translation>Zuklappen</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>Lösen</translation>
    </message>
    <message>
        <source>Pin to Top</source>
        <translation>Oben anheften</translation>
    </message>
</context>
<context>
    <name>fathom::views::WhatIfView</name>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>Hardware</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>bf16 (fp32 master copy)</source>
        <translation>bf16 (fp32-Master-Kopie)</translation>
    </message>
    <message>
        <source>fp16 (fp32 master copy)</source>
        <translation>fp16 (fp32-Master-Kopie)</translation>
    </message>
    <message>
        <source>fp8 (fp32 master copy)</source>
        <translation>fp8 (fp32-Master-Kopie)</translation>
    </message>
    <message>
        <source>fp32</source>
        <translation>fp32</translation>
    </message>
    <message>
        <source>model default</source>
        <translation>Modellstandard</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>selektiv</translation>
    </message>
    <message>
        <source>full</source>
        <translation>vollständig</translation>
    </message>
    <message>
        <source>Offload optimizer states to the CPU</source>
        <translation>Optimiererzustände in den CPU-Speicher auslagern</translation>
    </message>
    <message>
        <source>Flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <source>GPUs:</source>
        <translation>GPUs:</translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation>Genauigkeit:</translation>
    </message>
    <message>
        <source>Micro-batch per GPU:</source>
        <translation>Mikro-Batch pro GPU:</translation>
    </message>
    <message>
        <source>Gradient accumulation:</source>
        <translation>Gradientenakkumulation:</translation>
    </message>
    <message>
        <source>Sequence length:</source>
        <translation>Sequenzlänge:</translation>
    </message>
    <message>
        <source>Optimizer:</source>
        <translation>Optimierer:</translation>
    </message>
    <message>
        <source>Recomputation:</source>
        <translation>Neuberechnung:</translation>
    </message>
    <message>
        <source>Details for:</source>
        <translation>Details für:</translation>
    </message>
    <message>
        <source>Save to Workspace</source>
        <translation>Im Arbeitsbereich speichern</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Exportieren</translation>
    </message>
    <message>
        <source>Charts as PNG or SVG…</source>
        <translation>Diagramme als PNG oder SVG…</translation>
    </message>
    <message>
        <source>Comparison as CSV…</source>
        <translation>Vergleich als CSV…</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>Time and communication</source>
        <translation>Zeit und Kommunikation</translation>
    </message>
    <message>
        <source>Strategies</source>
        <translation>Strategien</translation>
    </message>
    <message>
        <source>Collectives</source>
        <translation>Kollektive Operationen</translation>
    </message>
    <message>
        <source>Top plans</source>
        <translation>Beste Pläne</translation>
    </message>
    <message>
        <source>%1: %2 parameters on %3. %4 of %5 strategies fit; %6 plans searched in %7.</source>
        <translation>%1: %2 Parameter auf %3. %4 von %5 Strategien passen; %6 Pläne in %7 durchsucht.</translation>
    </message>
    <message>
        <source>%1: %2 sent per GPU per optimizer step</source>
        <translation>%1: %2 pro GPU und Optimiererschritt gesendet</translation>
    </message>
    <message>
        <source>Fathom what-if comparison</source>
        <translation>Fathom-Was-wäre-wenn-Vergleich</translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation>%1 kann nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Nothing to export yet.</source>
        <translation>Noch nichts zu exportieren.</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Export Charts</source>
        <translation>Diagramme exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG-Bild (*.png);;SVG-Zeichnung (*.svg)</translation>
    </message>
    <message>
        <source>Export Comparison</source>
        <translation>Vergleich exportieren</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV-Tabelle (*.csv)</translation>
    </message>
    <message>
        <source>Device map</source>
        <translation>Device-Map</translation>
    </message>
    <message>
        <source>Inference / big model: where each module of a model goes across GPUs, CPU and disk (Accelerate&apos;s device maps).</source>
        <translation>Inferenz / große Modelle: wohin jedes Modul eines Modells auf GPUs, CPU und Datenträger kommt (die Device-Maps von Accelerate).</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardBatchPage</name>
    <message>
        <source>Batch size and accumulation</source>
        <translation>Batchgröße und Akkumulation</translation>
    </message>
    <message>
        <source>What one optimizer step consumes. Gradient accumulation trades time for memory: the same global batch from smaller micro-batches.</source>
        <translation>Was ein Optimiererschritt verbraucht. Gradientenakkumulation tauscht Zeit gegen Speicher: derselbe globale Batch aus kleineren Mikro-Batches.</translation>
    </message>
    <message>
        <source>the model&apos;s context</source>
        <translation>der Kontext des Modells</translation>
    </message>
    <message>
        <source>Micro-batch per process:</source>
        <translation>Mikro-Batch pro Prozess:</translation>
    </message>
    <message>
        <source>Gradient accumulation steps:</source>
        <translation>Schritte der Gradientenakkumulation:</translation>
    </message>
    <message>
        <source>Sequence length (planner):</source>
        <translation>Sequenzlänge (Planer):</translation>
    </message>
    <message>
        <source>Global batch: %1 × %2 × %3 processes = %4 samples per optimizer step.</source>
        <translation>Globaler Batch: %1 × %2 × %3 Prozesse = %4 Beispiele pro Optimiererschritt.</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardEnvironmentPage</name>
    <message>
        <source>Environment</source>
        <translation>Umgebung</translation>
    </message>
    <message>
        <source>Where the run will execute, and the device the planner predicts for.</source>
        <translation>Wo der Lauf ausgeführt wird und für welches Gerät der Planer vorhersagt.</translation>
    </message>
    <message>
        <source>Run on</source>
        <translation>Ausführen auf</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>Probing this machine…</source>
        <translation>Dieser Rechner wird untersucht…</translation>
    </message>
    <message>
        <source>Train on the CPU (Gloo), even where GPUs exist</source>
        <translation>Auf der CPU trainieren (Gloo), auch wenn GPUs vorhanden sind</translation>
    </message>
    <message>
        <source>One host per line, rank 0&apos;s first</source>
        <translation>Ein Host pro Zeile, der von Rang 0 zuerst</translation>
    </message>
    <message>
        <source>launcher&apos;s choice</source>
        <translation>Wahl des Launchers</translation>
    </message>
    <message>
        <source>Hosts:</source>
        <translation>Hosts:</translation>
    </message>
    <message>
        <source>Start agents with:</source>
        <translation>Agenten starten mit:</translation>
    </message>
    <message>
        <source>SSH user:</source>
        <translation>SSH-Benutzer:</translation>
    </message>
    <message>
        <source>Rendezvous port:</source>
        <translation>Rendezvous-Port:</translation>
    </message>
    <message>
        <source>Plan for</source>
        <translation>Planen für</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>as the preset</source>
        <translation>wie die Vorlage</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>Gerät:</translation>
    </message>
    <message>
        <source>GPUs per node:</source>
        <translation>GPUs pro Knoten:</translation>
    </message>
    <message numerus="yes">
        <source>No CUDA device: processes train on the CPU with Gloo (%n core(s), %1 of memory).</source>
        <translation>
            <numerusform>Kein CUDA-Gerät: Die Prozesse trainieren auf der CPU mit Gloo (%n Kern, %1 Speicher).</numerusform>
            <numerusform>Kein CUDA-Gerät: Die Prozesse trainieren auf der CPU mit Gloo (%n Kerne, %1 Speicher).</numerusform>
        </translation>
    </message>
    <message>
        <source>cuda:%1 %2 (%3)</source>
        <translation>cuda:%1 %2 (%3)</translation>
    </message>
    <message>
        <source>fathom launch on each machine</source>
        <translation>fathom launch auf jeder Maschine</translation>
    </message>
    <message>
        <source>~/.ssh/config</source>
        <translation>~/.ssh/config</translation>
    </message>
    <message>
        <source>SSH configuration file:</source>
        <translation>SSH-Konfigurationsdatei:</translation>
    </message>
    <message>
        <source>Other hosts (over SSH or under SLURM, one agent per host)</source>
        <translation>Andere Hosts (über SSH oder unter SLURM, ein Agent je Host)</translation>
    </message>
    <message>
        <source>the cluster&apos;s default</source>
        <translation>Standard des Clusters</translation>
    </message>
    <message>
        <source>the partition&apos;s default (HH:MM:SS, D-HH:MM, ...)</source>
        <translation>Standard der Partition (HH:MM:SS, T-HH:MM, ...)</translation>
    </message>
    <message>
        <source>your default account</source>
        <translation>Ihr Standardkonto</translation>
    </message>
    <message>
        <source>Nodes:</source>
        <translation>Knoten:</translation>
    </message>
    <message>
        <source>Partition:</source>
        <translation>Partition:</translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation>Zeitlimit:</translation>
    </message>
    <message>
        <source>Account:</source>
        <translation>Konto:</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardModelPage</name>
    <message>
        <source>Model and data</source>
        <translation>Modell und Daten</translation>
    </message>
    <message>
        <source>What trains: one of Fathom&apos;s built-in models on its built-in data, or your own program.</source>
        <translation>Was trainiert wird: eines der eingebauten Modelle von Fathom mit seinen eingebauten Daten oder Ihr eigenes Programm.</translation>
    </message>
    <message>
        <source>Built-in model (fathom train)</source>
        <translation>Eingebautes Modell (fathom train)</translation>
    </message>
    <message>
        <source>My program</source>
        <translation>Mein Programm</translation>
    </message>
    <message>
        <source>summary only</source>
        <translation>nur Zusammenfassung</translation>
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
        <translation>Daten: Die gpt-Modelle lesen den mitgelieferten Textkorpus auf Zeichenebene, das mlp einen synthetischen Regressionsdatensatz.</translation>
    </message>
    <message>
        <source>Optimizer steps:</source>
        <translation>Optimiererschritte:</translation>
    </message>
    <message>
        <source>Log every:</source>
        <translation>Protokollieren alle:</translation>
    </message>
    <message>
        <source>Optimizer:</source>
        <translation>Optimierer:</translation>
    </message>
    <message>
        <source>an executable; a name without &apos;/&apos; is looked up in PATH</source>
        <translation>eine ausführbare Datei; ein Name ohne &apos;/&apos; wird im PATH gesucht</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Training program</source>
        <translation>Trainingsprogramm</translation>
    </message>
    <message>
        <source>--epochs 3 --data /data/train</source>
        <translation>--epochs 3 --data /data/train</translation>
    </message>
    <message>
        <source>Its model, for the planner</source>
        <translation>Sein Modell, für den Planer</translation>
    </message>
    <message>
        <source>Program:</source>
        <translation>Programm:</translation>
    </message>
    <message>
        <source>Arguments:</source>
        <translation>Argumente:</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardParadigmPage</name>
    <message>
        <source>Training paradigm</source>
        <translation>Trainingsverfahren</translation>
    </message>
    <message>
        <source>How the model and its training state are spread over the processes.</source>
        <translation>Wie das Modell und sein Trainingszustand auf die Prozesse verteilt werden.</translation>
    </message>
    <message>
        <source>No distribution: one process</source>
        <translation>Keine Verteilung: ein Prozess</translation>
    </message>
    <message>
        <source>DDP: every process holds the whole model; gradients are all-reduced</source>
        <translation>DDP: jeder Prozess hält das ganze Modell; Gradienten werden per All-Reduce gemittelt</translation>
    </message>
    <message>
        <source>FSDP: parameters, gradients and optimizer states sharded</source>
        <translation>FSDP: Parameter, Gradienten und Optimiererzustände geshardet</translation>
    </message>
    <message>
        <source>DeepSpeed ZeRO: optimizer states, gradients or parameters sharded by stage</source>
        <translation>DeepSpeed ZeRO: Optimiererzustände, Gradienten oder Parameter je nach Stufe geshardet</translation>
    </message>
    <message>
        <source>Processes (GPUs) in total:</source>
        <translation>Prozesse (GPUs) insgesamt:</translation>
    </message>
    <message>
        <source>FSDP</source>
        <translation>FSDP</translation>
    </message>
    <message>
        <source>the model&apos;s repeated blocks</source>
        <translation>die wiederholten Blöcke des Modells</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>nicht gesetzt</translation>
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
        <translation>Parameter, Gradienten und Optimierer in den CPU-Speicher auslagern</translation>
    </message>
    <message>
        <source>Prefetch the next unit in forward</source>
        <translation>Nächste Einheit im Vorwärtsdurchlauf vorab laden</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>Aktivierungs-Checkpointing</translation>
    </message>
    <message>
        <source>Load weights on rank 0 only</source>
        <translation>Gewichte nur auf Rang 0 laden</translation>
    </message>
    <message>
        <source>Broadcast rank 0&apos;s parameters</source>
        <translation>Parameter von Rang 0 verteilen</translation>
    </message>
    <message>
        <source>Use the original parameters</source>
        <translation>Originalparameter verwenden</translation>
    </message>
    <message>
        <source>Sharding strategy:</source>
        <translation>Sharding-Strategie:</translation>
    </message>
    <message>
        <source>Auto-wrap policy:</source>
        <translation>Auto-Wrap-Regel:</translation>
    </message>
    <message>
        <source>Block classes to wrap:</source>
        <translation>Zu umhüllende Blockklassen:</translation>
    </message>
    <message>
        <source>Minimum parameters per unit:</source>
        <translation>Mindestparameter pro Einheit:</translation>
    </message>
    <message>
        <source>Backward prefetch:</source>
        <translation>Rückwärts-Vorabladen:</translation>
    </message>
    <message>
        <source>Checkpoint layout:</source>
        <translation>Checkpoint-Format:</translation>
    </message>
    <message>
        <source>Version:</source>
        <translation>Version:</translation>
    </message>
    <message>
        <source>DeepSpeed ZeRO</source>
        <translation>DeepSpeed ZeRO</translation>
    </message>
    <message>
        <source>Stage 1: optimizer states</source>
        <translation>Stufe 1: Optimiererzustände</translation>
    </message>
    <message>
        <source>Stage 2: + gradients</source>
        <translation>Stufe 2: + Gradienten</translation>
    </message>
    <message>
        <source>Stage 3: + parameters</source>
        <translation>Stufe 3: + Parameter</translation>
    </message>
    <message>
        <source>Build the model sharded (zero3_init_flag)</source>
        <translation>Modell geshardet aufbauen (zero3_init_flag)</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>none: the settings above</source>
        <translation>keine: die Einstellungen oben</translation>
    </message>
    <message>
        <source>DeepSpeed config file:</source>
        <translation>DeepSpeed-Konfigurationsdatei:</translation>
    </message>
    <message>
        <source>Stage:</source>
        <translation>Stufe:</translation>
    </message>
    <message>
        <source>Offload optimizer states to:</source>
        <translation>Optimiererzustände auslagern nach:</translation>
    </message>
    <message>
        <source>Offload parameters to:</source>
        <translation>Parameter auslagern nach:</translation>
    </message>
    <message>
        <source>Gradient clipping:</source>
        <translation>Gradienten-Clipping:</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardPrecisionPage</name>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>The number format of the forward and backward passes (Accelerate&apos;s mixed_precision).</source>
        <translation>Das Zahlenformat von Vorwärts- und Rückwärtsdurchlauf (mixed_precision von Accelerate).</translation>
    </message>
    <message>
        <source>fp32 (no mixed precision)</source>
        <translation>fp32 (keine gemischte Genauigkeit)</translation>
    </message>
    <message>
        <source>Parameters, gradients and activations in 32 bits: the most memory, the reference numerics.</source>
        <translation>Parameter, Gradienten und Aktivierungen in 32 Bit: der meiste Speicher, die Referenz-Numerik.</translation>
    </message>
    <message>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <source>Matrix products in bfloat16 under autocast; parameters stay fp32. The usual choice on A100, H100 and newer.</source>
        <translation>Matrixprodukte in bfloat16 unter Autocast; Parameter bleiben fp32. Die übliche Wahl auf A100, H100 und neuer.</translation>
    </message>
    <message>
        <source>fp16</source>
        <translation>fp16</translation>
    </message>
    <message>
        <source>Matrix products in float16 with loss scaling (a GradScaler); for GPUs without bf16.</source>
        <translation>Matrixprodukte in float16 mit Loss-Skalierung (ein GradScaler); für GPUs ohne bf16.</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardReviewPage</name>
    <message>
        <source>Review</source>
        <translation>Überprüfen</translation>
    </message>
    <message>
        <source>The configuration exactly as it will be saved: an Accelerate config file with Fathom&apos;s section.</source>
        <translation>Die Konfiguration genau so, wie sie gespeichert wird: eine Accelerate-Konfigurationsdatei mit dem Abschnitt von Fathom.</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <source>Save Configuration</source>
        <translation>Konfiguration speichern</translation>
    </message>
    <message>
        <source>YAML configuration (*.yaml *.yml)</source>
        <translation>YAML-Konfiguration (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Save as:</source>
        <translation>Speichern unter:</translation>
    </message>
    <message>
        <source>This configuration cannot be saved:
%1</source>
        <translation>Diese Konfiguration kann nicht gespeichert werden:
%1</translation>
    </message>
    <message>
        <source>Launch runs: %1</source>
        <translation>Starten führt aus: %1</translation>
    </message>
</context>
<context>
    <name>fathom::views::WizardToolsPage</name>
    <message>
        <source>Experiment trackers</source>
        <translation>Experiment-Tracker</translation>
    </message>
    <message>
        <source>Fathom workspace (sqlite)</source>
        <translation>Fathom-Arbeitsbereich (sqlite)</translation>
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
        <translation>das aktuelle Verzeichnis</translation>
    </message>
    <message>
        <source>the workspace open in the Studio</source>
        <translation>der im Studio geöffnete Arbeitsbereich</translation>
    </message>
    <message>
        <source>Project directory:</source>
        <translation>Projektverzeichnis:</translation>
    </message>
    <message>
        <source>Workspace file:</source>
        <translation>Arbeitsbereichsdatei:</translation>
    </message>
    <message>
        <source>Profile the run</source>
        <translation>Lauf profilieren</translation>
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
        <translation>Formen aufzeichnen</translation>
    </message>
    <message>
        <source>Profile memory</source>
        <translation>Speicher profilieren</translation>
    </message>
    <message>
        <source>With stacks</source>
        <translation>Mit Stacks</translation>
    </message>
    <message>
        <source>the project directory</source>
        <translation>das Projektverzeichnis</translation>
    </message>
    <message>
        <source>wait</source>
        <translation>Warten</translation>
    </message>
    <message>
        <source>warm-up</source>
        <translation>Aufwärmen</translation>
    </message>
    <message>
        <source>active</source>
        <translation>Aktiv</translation>
    </message>
    <message>
        <source>repeat</source>
        <translation>Wiederholen</translation>
    </message>
    <message>
        <source>Activities:</source>
        <translation>Aktivitäten:</translation>
    </message>
    <message>
        <source>Schedule (steps):</source>
        <translation>Zeitplan (Schritte):</translation>
    </message>
    <message>
        <source>Record:</source>
        <translation>Aufzeichnen:</translation>
    </message>
    <message>
        <source>Trace folder:</source>
        <translation>Trace-Ordner:</translation>
    </message>
    <message>
        <source>All of Fathom&apos;s trackers</source>
        <translation>Alle Tracker von Fathom</translation>
    </message>
    <message>
        <source>CSV file</source>
        <translation>CSV-Datei</translation>
    </message>
    <message>
        <source>JSON lines file</source>
        <translation>JSON-Lines-Datei</translation>
    </message>
    <message>
        <source>Trackers, monitoring and profiler</source>
        <translation>Tracker, Überwachung und Profiler</translation>
    </message>
    <message>
        <source>Where the run&apos;s metrics go, when the launcher reports a hung or slow rank, and what the profiler records.</source>
        <translation>Wohin die Metriken des Laufs gehen, wann der Launcher einen hängenden oder langsamen Rang meldet und was der Profiler aufzeichnet.</translation>
    </message>
    <message>
        <source>Monitoring</source>
        <translation>Überwachung</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <source>Seconds without progress of any rank, while the ranks disagree on the collective they are in, before the launcher reports a hang. 0 turns hang detection off.</source>
        <translation>Sekunden ohne Fortschritt irgendeines Rangs, während die Ränge in verschiedenen kollektiven Operationen stehen, bevor der Launcher einen Hänger meldet. 0 schaltet die Hänger-Erkennung aus.</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>A rank whose own time per step exceeds the other ranks&apos; median by more than this is flagged as a straggler. 0 turns straggler detection off.</source>
        <translation>Ein Rang, dessen eigene Zeit pro Schritt den Median der anderen Ränge um mehr als diesen Wert übersteigt, wird als Nachzügler markiert. 0 schaltet die Nachzügler-Erkennung aus.</translation>
    </message>
    <message>
        <source>Stop the run</source>
        <translation>Lauf abbrechen</translation>
    </message>
    <message>
        <source>Report it, the run goes on</source>
        <translation>Melden, der Lauf geht weiter</translation>
    </message>
    <message>
        <source>Hang timeout:</source>
        <translation>Zeitlimit für Hänger:</translation>
    </message>
    <message>
        <source>Straggler threshold:</source>
        <translation>Schwelle für Nachzügler:</translation>
    </message>
    <message>
        <source>On a hang:</source>
        <translation>Bei einem Hänger:</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Demo workspace ready: %1</source>
        <translation>Demo-Arbeitsbereich bereit: %1</translation>
    </message>
    <message>
        <source>%1: only one workspace can be opened (%2 is one already)</source>
        <translation>%1: Es kann nur ein Arbeitsbereich geöffnet werden (%2 ist bereits einer)</translation>
    </message>
</context>
</TS>
