<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>AliasEditor</name>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="74"/>
        <source>教它一个叫法（全局用户别名，最高信任）</source>
        <translation>Teach a name (global user alias, highest trust)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="76"/>
        <source>名称，例如 绿泡泡</source>
        <translation>Name, e.g. 绿泡泡</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="78"/>
        <source>包名，例如 com.tencent.mm</source>
        <translation>Package, e.g. com.tencent.mm</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="79"/>
        <source>保存</source>
        <translation>Save</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="80"/>
        <source>忘记这个叫法</source>
        <translation>Forget this name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="81"/>
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="82"/>
        <source>重做</source>
        <translation>Redo</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="92"/>
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="93"/>
        <location filename="../../gui/pages/alias_editor.py" line="252"/>
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="101"/>
        <source>试试解析</source>
        <translation>Try a name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="103"/>
        <source>输入一个叫法，看它会打开哪个应用</source>
        <translation>Type a name to see which app it would open</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="105"/>
        <source>不限设备</source>
        <translation>Any device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="114"/>
        <source>这个叫法的历史</source>
        <translation>History of this name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="149"/>
        <source>已保存：{0} → {1}</source>
        <translation>Saved: {0} → {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="154"/>
        <source>设置 {0}</source>
        <translation>Set {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="163"/>
        <source>已忘记 {0}（设备清单条目不动）</source>
        <translation>Forgot {0} (device entries kept)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="164"/>
        <source>忘记 {0}</source>
        <translation>Forget {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="166"/>
        <source>{0} 没有可忘记的用户或学习别名</source>
        <translation>{0} has no user or learned alias to forget</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="175"/>
        <source>已撤回改动 {0}</source>
        <translation>Reverted change {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="202"/>
        <source>改动</source>
        <translation>change</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="212"/>
        <source>没有历史</source>
        <translation>No history</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="235"/>
        <source>可直接打开</source>
        <translation>Safe to open</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="236"/>
        <source>需要模型选择</source>
        <translation>Needs the model to choose</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="237"/>
        <source>不认识</source>
        <translation>Unknown</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="242"/>
        <source>已安装</source>
        <translation>installed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="242"/>
        <source>未安装</source>
        <translation>not installed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="253"/>
        <source>标准名</source>
        <translation>Label</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="254"/>
        <source>匹配到</source>
        <translation>Matched</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="255"/>
        <source>证据</source>
        <translation>Evidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="256"/>
        <source>相似度</source>
        <translation>Similarity</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="257"/>
        <source>先验</source>
        <translation>Prior</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="258"/>
        <source>得分</source>
        <translation>Score</translation>
    </message>
</context>
<context>
    <name>AliasTableModel</name>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="69"/>
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="70"/>
        <source>标准名</source>
        <translation>Label</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="71"/>
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="72"/>
        <source>来源</source>
        <translation>Source</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="73"/>
        <source>范围</source>
        <translation>Scope</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="74"/>
        <source>置信度</source>
        <translation>Confidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="75"/>
        <source>成功</source>
        <translation>Succeeded</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="76"/>
        <source>最近成功</source>
        <translation>Last success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="77"/>
        <source>状态</source>
        <translation>State</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="80"/>
        <source>用户</source>
        <translation>User</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="81"/>
        <source>设备清单</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="82"/>
        <source>学习</source>
        <translation>Learned</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="83"/>
        <source>别名</source>
        <translation>Alias</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="94"/>
        <source>成功启动次数</source>
        <translation>Successful launches</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="98"/>
        <source>首次出现 {0}，最近出现 {1}</source>
        <translation>First seen {0}, last seen {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="110"/>
        <source>全局</source>
        <translation>Global</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="118"/>
        <source>已失效</source>
        <translation>Stale</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="118"/>
        <source>有效</source>
        <translation>Live</translation>
    </message>
</context>
<context>
    <name>AppKbPage</name>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="164"/>
        <source>搜索名称、标准名或包名</source>
        <translation>Search names, labels or packages</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="167"/>
        <source>全部设备</source>
        <translation>All devices</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="169"/>
        <source>全部来源</source>
        <translation>All sources</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="173"/>
        <source>显示已失效</source>
        <translation>Show stale</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="242"/>
        <source>信任顺序：用户 &gt; 设备清单 &gt; 学习。设备清单条目来自设备，只读；在右侧教它新的叫法或让它忘记。</source>
        <translation>Trust: user &gt; device &gt; learned. Device entries come from the devices and are read-only; teach or forget names on the right.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="239"/>
        <location filename="../../gui/pages/appkb_page.py" line="450"/>
        <source>显示 {0}{1} 条，共 {2} 条</source>
        <translation>Showing {0}{1} of {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="245"/>
        <source>应用库还是空的：设备同步应用清单后（inventory.sync，或 jiyi inventory sync）这里会列出已安装的应用；也可以在右侧教它一个叫法，或导入 TaskWizard。</source>
        <translation>The App-KB is empty: once a device syncs its app list (inventory.sync, or jiyi inventory sync) its installed apps are listed here; you can also teach it a name on the right, or import TaskWizard.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="251"/>
        <source>导入 TaskWizard…</source>
        <translation>Import TaskWizard…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="252"/>
        <source>导出 TaskWizard…</source>
        <translation>Export TaskWizard…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="323"/>
        <source>选择 TaskWizard 的 memory 目录</source>
        <translation>Choose TaskWizard&apos;s memory folder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="334"/>
        <source>正在导入 {0}…</source>
        <translation>Importing {0}…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="357"/>
        <source>导入 {0}：{1}</source>
        <translation>Imported {0}: {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="364"/>
        <source>应用库</source>
        <translation>App-KB</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="365"/>
        <source>运行档案</source>
        <translation>runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="366"/>
        <source>回想统计</source>
        <translation>recall scorecard</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="367"/>
        <source>经验教训</source>
        <translation>lessons</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="371"/>
        <source>{0}：已导入过，没有新内容</source>
        <translation>{0}: imported before, nothing new</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="372"/>
        <source>{0}：导入 {1} 条，跳过 {2} 条损坏</source>
        <translation>{0}: imported {1}, skipped {2} corrupt</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="348"/>
        <source>{0} 已损坏，按日志重建</source>
        <translation>{0} is damaged; rebuilt from the log</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="374"/>
        <source>（日志已被压缩改写，已有的 {0} 条没有重复导入，删除了它不再包含的 {1} 条）</source>
        <translation> (the log was compacted since: {0} lines already here were not imported again; {1} entries it no longer has were deleted)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="378"/>
        <source>（认出是之前从 {0} 导入的目录）</source>
        <translation> (recognised as the directory imported before from {0})</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="380"/>
        <source>（可能是别处仍在的目录的副本，已单独导入；若它取代那个目录，请加 --replaces 再导入）</source>
        <translation> (it may be a copy of a directory still in another place: imported as a directory of its own; if it replaces that one, import it again with --replaces)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="397"/>
        <source>已导出 {0} 个应用库事件、{1} 条档案到 {2}</source>
        <translation>Exported {0} App-KB events and {1} episode records to {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="408"/>
        <source>导入 TaskWizard</source>
        <translation>TaskWizard import</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="418"/>
        <source>已导入，正在为回想建立索引：{0}/{1} 条运行</source>
        <translation>Imported; indexing runs for recall: {0}/{1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="421"/>
        <source>没有完成：{0}</source>
        <translation>Not done: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="431"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
</context>
<context>
    <name>BundlesPage</name>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="87"/>
        <source>资料夹 / 文档</source>
        <translation>Bundle / document</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="87"/>
        <source>修订</source>
        <translation>Revision</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="95"/>
        <source>预览</source>
        <translation>Preview</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="96"/>
        <source>编辑</source>
        <translation>Edit</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="97"/>
        <location filename="../../gui/pages/bundles_page.py" line="196"/>
        <source>选择左边的文档。</source>
        <translation>Choose a document on the left.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="101"/>
        <source>保存</source>
        <translation>Save</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="106"/>
        <source>新建文档…</source>
        <translation>New document…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="108"/>
        <source>打开文件夹</source>
        <translation>Open folder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="110"/>
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="157"/>
        <source>日程</source>
        <translation>Schedule</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="157"/>
        <source>项目</source>
        <translation>Project</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="173"/>
        <source>运行记录</source>
        <translation>Runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="191"/>
        <source>还没有资料夹。定时任务第一次完成时（task.complete 带 schedule_id）会建立它的资料夹，之后每次运行的记录和你写的说明都放在里面。</source>
        <translation>No bundles yet. A scheduled task gets its bundle when it first completes (task.complete with a schedule_id); each run&apos;s record and your notes are kept in it.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="205"/>
        <source>{0} 已被别人改到修订 {1}；你的编辑基于修订 {2}，保存时会提示冲突。</source>
        <translation>{0} was changed by someone else to revision {1}; your edit is based on revision {2}, so saving will show the conflict.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="243"/>
        <source>（镜像文件缺失）</source>
        <translation> (the mirrored file is missing)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="244"/>
        <source>（镜像文件在 Jiyi 之外被改过；下次保存会把那份另存）</source>
        <translation> (the mirrored file was edited outside Jiyi; the next save keeps that version beside it)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="247"/>
        <source>{0} / {1} · 修订 {2}</source>
        <translation>{0} / {1} · revision {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="259"/>
        <source>已保存（修订 {0}，{1}）</source>
        <translation>Saved (revision {0}, {1})</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="293"/>
        <source>；文件在外部被改过的版本已另存为 {0}</source>
        <translation>; the version edited outside was kept as {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="315"/>
        <source>失败：{0}</source>
        <translation>Failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="329"/>
        <source>新建文档</source>
        <translation>New document</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="329"/>
        <source>文件名（如 notes.md）：</source>
        <translation>File name (e.g. notes.md):</translation>
    </message>
</context>
<context>
    <name>Calibration</name>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="23"/>
        <source>本机的评估</source>
        <translation>this device&apos;s evaluations</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="24"/>
        <source>过去运行的留一法</source>
        <translation>leave-one-out over past runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="25"/>
        <source>模型的固定阈值</source>
        <translation>the model&apos;s fixed threshold</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="33"/>
        <source>置信度（最高应用得分 + 部分领先第二名的差）</source>
        <translation>confidence (the top app&apos;s score + part of its lead over the runner-up)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="34"/>
        <source>最高应用得分</source>
        <translation>the top app&apos;s score</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="35"/>
        <source>参考评分（0.75×相似 + 0.25×关键词）</source>
        <translation>the reference&apos;s score (0.75 × similarity + 0.25 × keywords)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="37"/>
        <source>得分</source>
        <translation>score</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="45"/>
        <source>尚未计算</source>
        <translation>not computed yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="47"/>
        <source>阈值 {0:.4f} · 来自{1}（{2} 次）· 污染预算 {3:.2f} · {4}</source>
        <translation>threshold {0:.4f} · from {1} ({2} runs) · contamination budget {3:.2f} · {4}</translation>
    </message>
</context>
<context>
    <name>CalibrationChart</name>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="69"/>
        <source>校准曲线：阈值越低，召回越多，污染也越多</source>
        <translation>Calibration: lower thresholds recall more and contaminate more</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="70"/>
        <source>阈值</source>
        <translation>Threshold</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="73"/>
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="97"/>
        <source>还没有设备的校准：设备有了过去的运行或评估后会自动计算</source>
        <translation>No device is calibrated yet; it happens by itself once a device has past runs or evaluations</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="100"/>
        <source>阈值：{0}</source>
        <translation>threshold: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="106"/>
        <source>污染率</source>
        <translation>Contamination</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="112"/>
        <source>污染率上界</source>
        <translation>Contamination (upper bound)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="123"/>
        <source>选定的点</source>
        <translation>Chosen point</translation>
    </message>
    <message>
        <location filename="../../gui/pages/calibration_chart.py" line="129"/>
        <source>污染预算 {0:.2f}</source>
        <translation>Budget {0:.2f}</translation>
    </message>
</context>
<context>
    <name>Codes</name>
    <message>
        <location filename="../../gui/codes.py" line="21"/>
        <source>用户设定叫法</source>
        <translation>user set alias</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="22"/>
        <source>忘记叫法</source>
        <translation>alias forgotten</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="23"/>
        <source>写入条目</source>
        <translation>entry written</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="24"/>
        <source>删除条目</source>
        <translation>entry deleted</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="25"/>
        <source>标为失效</source>
        <translation>marked stale</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="26"/>
        <source>观察到启动</source>
        <translation>launch observed</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="34"/>
        <location filename="../../gui/codes.py" line="45"/>
        <source>用户</source>
        <translation>user</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="35"/>
        <source>智能体</source>
        <translation>agent</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="36"/>
        <source>系统</source>
        <translation>system</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="37"/>
        <source>整理</source>
        <translation>dream</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="46"/>
        <source>设备清单</source>
        <translation>inventory</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="47"/>
        <source>学习</source>
        <translation>Learning</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="48"/>
        <source>别名</source>
        <translation>alias</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="56"/>
        <source>精确匹配，明显领先</source>
        <translation>exact match, clearly ahead</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="57"/>
        <source>规范化后什么也不剩</source>
        <translation>nothing left after normalization</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="58"/>
        <source>没有匹配的应用</source>
        <translation>no matching app</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="59"/>
        <source>只有模糊、拼音或向量匹配</source>
        <translation>only fuzzy, pinyin or embedding matches</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="60"/>
        <source>最佳匹配证据不足</source>
        <translation>the best match is weak</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="61"/>
        <source>几个应用不相上下</source>
        <translation>several apps match about equally</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="62"/>
        <source>设备上没有安装</source>
        <translation>not installed on the device</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="63"/>
        <source>设置禁止自动打开</source>
        <translation>auto-launch forbidden by settings</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="71"/>
        <source>叫法完全一致</source>
        <translation>exact alias</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="72"/>
        <source>标准名完全一致</source>
        <translation>exact label</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="73"/>
        <source>包名完全一致</source>
        <translation>exact package</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="74"/>
        <source>包名片段一致</source>
        <translation>package segment</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="75"/>
        <source>包含登记的名称</source>
        <translation>contains a registered name</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="76"/>
        <source>字形相近</source>
        <translation>similar spelling</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="77"/>
        <source>全拼相同</source>
        <translation>same full pinyin</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="78"/>
        <source>拼音首字母相同</source>
        <translation>same pinyin initials</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="79"/>
        <source>语义相近</source>
        <translation>similar meaning</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="87"/>
        <source>完成</source>
        <translation>finished</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="88"/>
        <source>人工接管</source>
        <translation>takeover</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="89"/>
        <source>步数用尽</source>
        <translation>max_steps</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="90"/>
        <source>验收未通过</source>
        <translation>verifier failed</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="91"/>
        <source>未报告结果</source>
        <translation>not_reported</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="92"/>
        <location filename="../../gui/codes.py" line="175"/>
        <source>出错</source>
        <translation>error</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="93"/>
        <source>已取消</source>
        <translation>cancelled</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="94"/>
        <source>超时</source>
        <translation>timeout</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="102"/>
        <source>身份</source>
        <translation>identity</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="103"/>
        <source>沟通方式</source>
        <translation>communication</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="104"/>
        <source>工作习惯</source>
        <translation>work style</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="112"/>
        <source>等待第二个工作日的佐证</source>
        <translation>awaiting evidence on a second workday</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="114"/>
        <source>由学习采用</source>
        <translation>adopted by learning</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="116"/>
        <source>所有者改过</source>
        <translation>edited by the owner</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="119"/>
        <source>在 {0} 各有独立佐证</source>
        <translation>independent evidence on {0}</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="122"/>
        <source>{0} 个工作日没有佐证（{1} 复核）</source>
        <translation>no corroboration for {0} workdays (reviewed {1})</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="129"/>
        <source>新增</source>
        <translation>add</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="130"/>
        <source>替换</source>
        <translation>replace</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="131"/>
        <source>删除</source>
        <translation>remove</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="132"/>
        <source>无改动</source>
        <translation>no change</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="140"/>
        <source>用户画像事实</source>
        <translation>profile fact</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="141"/>
        <source>项目事实</source>
        <translation>project fact</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="142"/>
        <source>设备环境事实</source>
        <translation>environment fact</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="143"/>
        <source>经验教训</source>
        <translation>lesson</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="144"/>
        <source>操作步骤</source>
        <translation>procedure</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="145"/>
        <source>技能草稿</source>
        <translation>skill draft</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="153"/>
        <source>已领取</source>
        <translation>leased</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="154"/>
        <source>已提交</source>
        <translation>submitted</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="155"/>
        <source>审阅中</source>
        <translation>reviewing</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="156"/>
        <source>失败</source>
        <translation>failed</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="164"/>
        <source>通过</source>
        <translation>pass</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="165"/>
        <source>未通过</source>
        <translation>fail</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="166"/>
        <source>未验收</source>
        <translation>not verified</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="174"/>
        <source>成功</source>
        <translation>ok</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="176"/>
        <source>有警告</source>
        <translation>warned</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="184"/>
        <source>执行</source>
        <translation>actor</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="185"/>
        <source>验收</source>
        <translation>verifier</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="186"/>
        <source>规划</source>
        <translation>planner</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="187"/>
        <source>总结</source>
        <translation>summarizer</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="195"/>
        <source>全局</source>
        <translation>global</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="197"/>
        <source>设备 {0}</source>
        <translation>device {0}</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="204"/>
        <source>提取</source>
        <translation>extraction</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="205"/>
        <source>审阅</source>
        <translation>review</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="206"/>
        <source>采用</source>
        <translation>adoption</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="214"/>
        <source>应用库事件</source>
        <translation>App-KB events</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="215"/>
        <source>运行事件</source>
        <translation>run events</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="216"/>
        <source>回想事件</source>
        <translation>recall events</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="217"/>
        <source>经验事件</source>
        <translation>lesson events</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="218"/>
        <source>桌面记忆事件</source>
        <translation>desk memory events</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="219"/>
        <source>学习事件</source>
        <translation>learning events</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="223"/>
        <source>清空的集合</source>
        <translation>collections dropped</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="224"/>
        <source>运行</source>
        <translation>runs</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="225"/>
        <source>嵌入</source>
        <translation>embedded</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="226"/>
        <source>核对</source>
        <translation>reconciled</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="227"/>
        <source>叫法向量</source>
        <translation>name vectors</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="228"/>
        <source>写回的资料文件</source>
        <translation>bundle files restored</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="229"/>
        <source>写不回的资料文件</source>
        <translation>bundle files not restored</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="230"/>
        <source>拒绝的资料事件（路径越出资料夹）</source>
        <translation>bundle events refused (paths outside the bundles folder)</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="233"/>
        <source>{0}（损坏，已跳过）</source>
        <translation>{0} (damaged, skipped)</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="240"/>
        <source>桌面</source>
        <translation>desktop</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="241"/>
        <source>语音</source>
        <translation>voice</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="242"/>
        <source>手机</source>
        <translation>phone</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="243"/>
        <source>聊天</source>
        <translation>chat</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="269"/>
        <source>状态目录 {0} 在只读文件系统上</source>
        <translation>The home {0} is on a read-only file system</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="272"/>
        <source>你没有状态目录 {0} 的写权限</source>
        <translation>You cannot write to the home {0}</translation>
    </message>
    <message>
        <location filename="../../gui/codes.py" line="278"/>
        <source>{0}：可以查看，不能写入。</source>
        <translation>{0}: it can be viewed, not written.</translation>
    </message>
</context>
<context>
    <name>ConflictDialog</name>
    <message>
        <location filename="../../gui/pages/bundle_conflict.py" line="64"/>
        <source>保存冲突：{0}</source>
        <translation>Save conflict: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundle_conflict.py" line="76"/>
        <source>保存时发现这份文档已被别人改过（现在是修订 {0}）。左边是已保存的版本，右边是你的编辑；不同的行已标出。请选择：</source>
        <translation>This document was changed by someone else while you edited it (it is now at revision {0}). On the left is the stored version, on the right your edit; differing lines are marked. Choose:</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundle_conflict.py" line="82"/>
        <source>已保存（修订 {0}）</source>
        <translation>Stored (revision {0})</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundle_conflict.py" line="83"/>
        <source>你的编辑</source>
        <translation>Your edit</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundle_conflict.py" line="87"/>
        <source>载入已保存的版本</source>
        <translation>Load the stored version</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundle_conflict.py" line="88"/>
        <source>用我的版本覆盖</source>
        <translation>Overwrite with mine</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundle_conflict.py" line="89"/>
        <source>继续编辑</source>
        <translation>Keep editing</translation>
    </message>
</context>
<context>
    <name>Console</name>
    <message>
        <location filename="../../gui/refusal.py" line="102"/>
        <source>这个状态目录正被另一个记忆进程使用。</source>
        <translation>Another Jiyi process is using this home.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="100"/>
        <source>关闭那个进程，或用 --home 选择另一个状态目录。</source>
        <translation>Close that process, or choose another home with --home.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="48"/>
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="49"/>
        <location filename="../../gui/refusal.py" line="123"/>
        <source>数据库</source>
        <translation>Database</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="50"/>
        <source>数据库的 WAL 文件</source>
        <translation>The database's WAL file</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="51"/>
        <source>数据库的共享内存文件</source>
        <translation>The database's shared-memory file</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="52"/>
        <source>锁文件</source>
        <translation>Lock file</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="53"/>
        <source>确认标记文件</source>
        <translation>Acknowledgement mark</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="81"/>
        <source>{0} {1} 的权限是 {2:04o}，其他用户可以读取。</source>
        <translation>{0} {1} has mode {2:04o}: other users can read it.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="85"/>
        <source>它在只读的位置上，权限改不了：在可写的地方把它改为私有，或用 --home 选择另一个状态目录。</source>
        <translation>It is on a read-only file system, where no mode can change: make it private where it is writable, or choose another home with --home.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="89"/>
        <source>记忆只打开私有的状态目录。在终端运行 jiyi doctor --fix-permissions --home {0}。</source>
        <translation>Jiyi opens only a private home. In a terminal, run jiyi doctor --fix-permissions --home {0}.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="93"/>
        <source>{0} {1} 属于另一个用户（uid {2}），不是你的。</source>
        <translation>{0} {1} belongs to another user (uid {2}), not to you.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="96"/>
        <source>记忆只打开你自己的文件，也不会去改它。用 --home 选择你自己的状态目录。</source>
        <translation>Jiyi opens only your own files, and does not change another's. Choose a home of your own with --home.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="103"/>
        <source>这个状态目录正被进程 {0}（{1}）使用，自 {2} 起。</source>
        <translation>This home is in use by process {0} ({1}) since {2}.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="107"/>
        <source>{0}，里面也没有记忆数据库可以查看。</source>
        <translation>{0}, and it holds no Jiyi database to view.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="110"/>
        <source>用 --home 或 JIYI_HOME 选择一个可写的文件夹。</source>
        <translation>Choose a writable folder with --home or JIYI_HOME.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="114"/>
        <source>数据库是更新版本的记忆写的：{0}</source>
        <translation>The database was written by a newer Jiyi: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="114"/>
        <source>升级记忆后再打开它。</source>
        <translation>Upgrade Jiyi, then open it.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="117"/>
        <source>无法打开状态目录：{0}</source>
        <translation>Cannot open the home: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="127"/>
        <source>{0} 条</source>
        <translation>{0}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="129"/>
        <source>最多 {0} 条</source>
        <translation>up to {0}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="131"/>
        <source>数据库 {0} 不见了或是空的，而这个状态目录在里面确认写入过 {1} 条事件。</source>
        <translation>The database {0} is missing or empty, but this home acknowledged {1} events in it.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="135"/>
        <source>数据库 {0} 是另一个存储的，不是这个状态目录确认写入过 {1} 条事件的那一个。</source>
        <translation>The database {0} is another store's, not the one this home acknowledged {1} events in.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="139"/>
        <source>数据库 {0} 是旧副本（从备份恢复的？），缺少这个状态目录已确认写入的事件（{1}）。</source>
        <translation>The database {0} is an older copy (restored from a backup?): {1} events this home acknowledged are missing.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="143"/>
        <source>数据库 {0} 缺少已确认写入的事件（{1}）：它的 WAL 文件可能在服务停止时被删掉、截断或损坏了。</source>
        <translation>The database {0} lacks {1} acknowledged events: its WAL file was probably deleted, cut short or damaged while the service was stopped.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="147"/>
        <source>数据库 {0} 缺少已确认写入的事件（{1}）：服务器可能从备份恢复过，或切换到了缺少它们的副本。</source>
        <translation>The database {0} lacks {1} acknowledged events: the server was probably restored from a backup, or failed over to a replica that lacked them.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="151"/>
        <source>数据库 {0} 的历史和这个状态目录确认写入的不一致（第 {1} 条事件已不是原来那条）。</source>
        <translation>The database {0} has another history than this home acknowledged (event {1} is not the one it was).</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="155"/>
        <source>数据库缺少 {0} 条已确认写入的事件。</source>
        <translation>The database lacks {0} events whose writes were acknowledged.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="157"/>
        <source>数据库不是这个状态目录上次确认写入的那一个。</source>
        <translation>The database is not the one this home last acknowledged writes in.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="158"/>
        <source>什么都没有改动。运行 jiyi doctor 查看，或从备份恢复数据库。</source>
        <translation>Nothing was changed. Run jiyi doctor to see it, or restore the database from a backup.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="168"/>
        <source>设置有误：{0}</source>
        <translation>A setting is wrong: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="168"/>
        <source>检查以 JIYI_ 开头的环境变量和命令行参数；每项设置见 docs/configuration.md。</source>
        <translation>Check the JIYI_ environment variables and the command line; docs/configuration.md describes each setting.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="173"/>
        <source>设置文件 {0} 第 {1} 行第 {2} 列不是有效的 TOML：{3}</source>
        <translation>The settings file {0}, line {1}, column {2}: not valid TOML: {3}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="177"/>
        <source>设置文件 {0} 有误：{1}</source>
        <translation>The settings file {0} is wrong: {1}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="179"/>
        <source>设置文件 {0} 第 {1} 行有误：{2}</source>
        <translation>The settings file {0}, line {1}: {2}</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="182"/>
        <source>改正或删掉这一行，再打开记忆；每项设置见 docs/configuration.md。</source>
        <translation>Correct or remove that line, then open Jiyi again; docs/configuration.md describes each setting.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="192"/>
        <source>{0} {1} 的权限是 {2:04o}，其他用户可以读取。改为 {3:04o}？</source>
        <translation>{0} {1} has mode {2:04o}: other users can read it. Make it {3:04o}?</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="196"/>
        <source>修复会把状态目录改为 0700、其中的数据库文件改为 0600。</source>
        <translation>Fix makes the home 0700 and its database files 0600.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="197"/>
        <source>只改你自己的文件，不经过符号链接。</source>
        <translation>It changes only your own files, never through a symbolic link.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="198"/>
        <source>在终端也可以运行 jiyi doctor --fix-permissions。</source>
        <translation>In a terminal, jiyi doctor --fix-permissions does the same.</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="202"/>
        <source>修复</source>
        <translation>Fix</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="205"/>
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <location filename="../../gui/refusal.py" line="159"/>
        <source>要明知缺失而继续，在终端运行 jiyi serve --accept-loss（会记入事件日志）。</source>
        <translation>To go on knowingly without them, run jiyi serve --accept-loss in a terminal (it is recorded in the event log).</translation>
    </message>
    <message>
        <location filename="../../gui/opening.py" line="97"/>
        <source>正在启动记忆服务…</source>
        <translation>Starting the memory service…</translation>
    </message>
</context>
<context>
    <name>EpisodeTableModel</name>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="80"/>
        <source>结束时间</source>
        <translation>Ended</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="81"/>
        <source>目标</source>
        <translation>Goal</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="82"/>
        <source>应用</source>
        <translation>Apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="83"/>
        <source>结果</source>
        <translation>Outcome</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="84"/>
        <source>步数</source>
        <translation>Steps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="85"/>
        <source>令牌</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="86"/>
        <source>验收</source>
        <translation>Verifier</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="87"/>
        <source>回想</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="100"/>
        <source>成功</source>
        <translation>Success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="100"/>
        <source>失败</source>
        <translation>Failure</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="121"/>
        <source>已撤销</source>
        <translation>Revoked</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="123"/>
        <location filename="../../gui/pages/episodes_page.py" line="129"/>
        <source>不入索引</source>
        <translation>not indexed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="124"/>
        <source>可回想</source>
        <translation>recallable</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="128"/>
        <source>已被撤销：回想不会再提供它，档案仍保留</source>
        <translation>Revoked: recall no longer offers it; the archive keeps it</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="130"/>
        <source>少于 {0} 步或没有目标：不进入向量索引</source>
        <translation>Fewer than {0} steps or no goal: not in the vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="131"/>
        <source>回想可以把它作为过去的任务提供</source>
        <translation>Recall may offer it as a past task</translation>
    </message>
</context>
<context>
    <name>EpisodesPage</name>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="205"/>
        <source>搜索目标</source>
        <translation>Search goals</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="207"/>
        <source>应用包名</source>
        <translation>App package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="209"/>
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="211"/>
        <source>全部结果</source>
        <translation>All outcomes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="211"/>
        <source>成功</source>
        <translation>Success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="211"/>
        <source>失败</source>
        <translation>Failure</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="215"/>
        <source>全部时间</source>
        <translation>All time</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="216"/>
        <source>最近 1 天</source>
        <translation>Last day</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="217"/>
        <source>最近 7 天</source>
        <translation>Last 7 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="218"/>
        <source>最近 30 天</source>
        <translation>Last 30 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="238"/>
        <source>← 返回</source>
        <translation>← Back</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="239"/>
        <source>回到点链接之前看的运行</source>
        <translation>Back to the run shown before the link was followed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="242"/>
        <source>撤销回想</source>
        <translation>Revoke from recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="243"/>
        <source>恢复回想</source>
        <translation>Restore to recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="317"/>
        <source>失败：{0}</source>
        <translation>Failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="412"/>
        <source>没有符合筛选条件的运行。清空上方的筛选条件可以看到全部运行。</source>
        <translation>No run matches the filters. Clear the filters above to see every run.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="415"/>
        <source>还没有运行档案。手机智能体每次运行（run.start … run.finish）都会存档在这里；也可以在应用库页用“导入 TaskWizard…”导入已有的 memory 目录。</source>
        <translation>No runs archived yet. Every phone-agent run (run.start … run.finish) is archived here; you can also import an existing memory directory with &quot;Import TaskWizard…&quot; on the App-KB page.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="427"/>
        <source>应用：{0}&#x3000;令牌：{1}</source>
        <translation>Apps: {0}   Tokens: {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="428"/>
        <source>注入的经验：{0}</source>
        <translation>Lessons given: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="459"/>
        <source>依据：≈ {0} ({1})</source>
        <translation>Why: ≈ {0} ({1})</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="429"/>
        <source>工具事件</source>
        <translation>Tool events</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="447"/>
        <source>召回：{0}&#x3000;实际：{1}&#x3000;Hit@1：{2}&#x3000;污染：{3}</source>
        <translation>Recalled: {0}   Actual: {1}   Hit@1: {2}   Contaminated: {3}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="453"/>
        <source>回想</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="443"/>
        <source>这次运行没有回想记录</source>
        <translation>This run has no recall record</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="451"/>
        <source>是</source>
        <translation>yes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="451"/>
        <source>否</source>
        <translation>no</translation>
    </message>
</context>
<context>
    <name>FactsPage</name>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="62"/>
        <source>全部范围</source>
        <translation>All scopes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="66"/>
        <source>全部状态</source>
        <translation>All statuses</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="70"/>
        <source>搜索事实内容</source>
        <translation>Search facts</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="81"/>
        <source>事实</source>
        <translation>Fact</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="82"/>
        <source>范围</source>
        <translation>Scope</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="83"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="84"/>
        <source>佐证工作日</source>
        <translation>Workdays with evidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="85"/>
        <source>更新时间</source>
        <translation>Updated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="89"/>
        <source>确认有效</source>
        <translation>Confirm</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="90"/>
        <source>停用</source>
        <translation>Deactivate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="102"/>
        <source>还没有长期事实。桌面助手空闲整理对话时（memory.maintenance.commit）会提出事实，每条都带着原话作证据；环境和项目事实在两个工作日各有佐证后生效，你也可以在这里直接确认。</source>
        <translation>No long-term facts yet. When the desktop assistant files conversations while idle (memory.maintenance.commit) it proposes facts, each with the words said as evidence; environment and project facts take effect once corroborated on two workdays, or when you confirm them here.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="108"/>
        <source>用户画像</source>
        <translation>Profile</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="108"/>
        <source>项目</source>
        <translation>Project</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="108"/>
        <source>设备环境</source>
        <translation>Environment</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="111"/>
        <source>候选</source>
        <translation>Candidate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="111"/>
        <source>有效</source>
        <translation>Active</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="111"/>
        <source>已停用</source>
        <translation>Inactive</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="124"/>
        <source>选择一条事实查看它的证据。</source>
        <translation>Choose a fact to see its evidence.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="130"/>
        <source>证据</source>
        <translation>Evidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="127"/>
        <source>用户原话</source>
        <translation>user&apos;s words</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="127"/>
        <source>助手复述</source>
        <translation>assistant&apos;s restatement</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="127"/>
        <source>任务结果</source>
        <translation>task result</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="140"/>
        <source>（不计为独立佐证）</source>
        <translation>(not independent evidence)</translation>
    </message>
</context>
<context>
    <name>FailuresView</name>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="329"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="330"/>
        <source>来源编号</source>
        <translation>Source id</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="331"/>
        <location filename="../../gui/pages/learning_views.py" line="358"/>
        <source>原因</source>
        <translation>Reason</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="332"/>
        <source>时间</source>
        <translation>Time</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="344"/>
        <source>没有失败的记录。提取或审阅失败、过期或被取消的工作会留在这里。</source>
        <translation>No failures. Extraction or review work that failed, expired or was cancelled stays here.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="354"/>
        <source>没有失败记录，或未选择。</source>
        <translation>No failure, or none chosen.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="357"/>
        <source>来源</source>
        <translation>Source</translation>
    </message>
</context>
<context>
    <name>LearningPage</name>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="73"/>
        <source>由我审阅（不等审阅程序）</source>
        <translation>I review (no reviewer worker)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="79"/>
        <source>队列</source>
        <translation>Queue</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="80"/>
        <source>已采用</source>
        <translation>Adopted</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="81"/>
        <source>失败记录</source>
        <translation>Failures</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="95"/>
        <source>提取次数</source>
        <translation>Extractions</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="96"/>
        <source>审阅次数</source>
        <translation>Reviews</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="97"/>
        <source>采用条数</source>
        <translation>Adopted records</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="98"/>
        <source>采用字节</source>
        <translation>Adopted bytes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="102"/>
        <source>失败：{0}</source>
        <translation>Failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="124"/>
        <source>学习未开启：在 config.toml 里加上 [learning] 授权（jiyi learn grant --example 给出示例）。</source>
        <translation>Learning is off: add a [learning] grant to config.toml (jiyi learn grant --example prints one).</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="130"/>
        <source>无授权</source>
        <translation>No grant</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="134"/>
        <source>生效中</source>
        <translation>Active</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="134"/>
        <source>已停止</source>
        <translation>Stopped</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="135"/>
        <source>授权 {0}（所有者 {1}）· {2} · 到期 {3}</source>
        <translation>Grant {0} (owner {1}) · {2} · expires {3}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="139"/>
        <source>停止原因：{0}</source>
        <translation>Stopped because: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="145"/>
        <source>指纹：{0}</source>
        <translation>Fingerprints: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="150"/>
        <source>已用 {0} / {1}，剩 {2}</source>
        <translation>Used {0} / {1}, {2} left</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="153"/>
        <source>待处理 {0} / {1} · {2}</source>
        <translation>Pending {0} / {1} · {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="154"/>
        <source>队列为空</source>
        <translation>The queue is empty</translation>
    </message>
</context>
<context>
    <name>LessonsPage</name>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="62"/>
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="68"/>
        <source>筛选经验的文字或应用</source>
        <translation>Filter lessons by text or app</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="73"/>
        <location filename="../../gui/pages/lessons_page.py" line="87"/>
        <location filename="../../gui/pages/lessons_page.py" line="141"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="74"/>
        <source>经验</source>
        <translation>Lesson</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="75"/>
        <location filename="../../gui/pages/lessons_page.py" line="142"/>
        <source>相关应用</source>
        <translation>Apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="75"/>
        <location filename="../../gui/pages/lessons_page.py" line="138"/>
        <source>任何应用</source>
        <translation>Any app</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="76"/>
        <source>更新时间</source>
        <translation>Updated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="80"/>
        <source>批准</source>
        <translation>Approve</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="81"/>
        <source>撤销</source>
        <translation>Revoke</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="93"/>
        <source>代理可以用 lesson.add 提出一条经验，也可以在终端运行 jiyi lesson add 文字 --run 运行编号；经你批准后，代理在 on 模式下才会用到它。</source>
        <translation>An agent can propose a lesson with lesson.add, or you can run jiyi lesson add TEXT --run RUN_ID in a terminal; agents use it in on mode only after you approve it.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="106"/>
        <source>待批准</source>
        <translation>Awaiting approval</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="106"/>
        <source>已批准</source>
        <translation>Approved</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="106"/>
        <source>已撤销</source>
        <translation>Revoked</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="130"/>
        <source>选择一条经验，查看它来自哪些运行、用在了哪些运行上。</source>
        <translation>Choose a lesson to see the runs it came from and the runs it was given to.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="143"/>
        <source>提出时间</source>
        <translation>Proposed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="144"/>
        <source>编号</source>
        <translation>Id</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="147"/>
        <source>正在读取相关运行…</source>
        <translation>Reading the runs…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="149"/>
        <source>学自这些运行</source>
        <translation>Learned from these runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="150"/>
        <source>提出时没有注明来源运行。</source>
        <translation>No source run was named when it was proposed.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="151"/>
        <source>已用在这些运行上</source>
        <translation>Given to these runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="152"/>
        <source>还没有运行用到它。</source>
        <translation>No run has used it yet.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="161"/>
        <source>（档案中已没有这次运行）</source>
        <translation>(no longer in the archive)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="165"/>
        <source>成功</source>
        <translation>Succeeded</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="165"/>
        <source>失败</source>
        <translation>Failed</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gui/main_window.py" line="89"/>
        <source>正在启动记忆服务…</source>
        <translation>Starting the memory service…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="40"/>
        <source>概览</source>
        <translation>Overview</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="140"/>
        <source>应用库 App-KB</source>
        <translation>App-KB</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="143"/>
        <source>运行档案</source>
        <translation>Episodes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="81"/>
        <source>回想质量</source>
        <translation>Recall quality</translation>
    </message>
    <message>
        <location filename="../../gui/pages/lessons_page.py" line="35"/>
        <source>经验教训</source>
        <translation>Lessons</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="61"/>
        <source>资料夹</source>
        <translation>Bundles</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="40"/>
        <source>技能审批</source>
        <translation>Skills</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="39"/>
        <source>长期事实</source>
        <translation>Facts</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="48"/>
        <source>话题与工作日</source>
        <translation>Topics and workdays</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_page.py" line="40"/>
        <source>学习</source>
        <translation>Learning</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="58"/>
        <source>维护</source>
        <translation>Upkeep</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="155"/>
        <source>状态目录：{0}</source>
        <translation>Home: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="158"/>
        <source>只读</source>
        <translation>Read-only</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="197"/>
        <source>记忆</source>
        <translation>Jiyi</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="198"/>
        <source>设置…</source>
        <translation>Settings…</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="201"/>
        <source>筛选当前页</source>
        <translation>Filter this page</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="204"/>
        <source>刷新当前页</source>
        <translation>Refresh this page</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="208"/>
        <source>关于记忆…</source>
        <translation>About Jiyi…</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="210"/>
        <source>退出</source>
        <translation>Quit</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="249"/>
        <source>私有服务 {0}（这个控制台启动的进程 {1}）</source>
        <translation>Private service {0} (process {1}, started by this console)</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="253"/>
        <source>已连接到服务 {0}</source>
        <translation>Attached to the service {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="255"/>
        <source>本地（这个控制台打开了状态目录）</source>
        <translation>Local (this console opened the home)</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="259"/>
        <source>版本</source>
        <translation>Version</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="260"/>
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="261"/>
        <source>数据库结构版本</source>
        <translation>Schema version</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="262"/>
        <source>模式</source>
        <translation>Mode</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="265"/>
        <source>关于记忆 Jiyi</source>
        <translation>About Jiyi</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="267"/>
        <source>记忆 Jiyi</source>
        <translation>Jiyi</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="280"/>
        <source>已连接到服务</source>
        <translation>Attached to the service</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="280"/>
        <source>私有服务</source>
        <translation>Private service</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="283"/>
        <source>私有服务已退出（{0}）：{1}</source>
        <translation>The private service exited ({0}): {1}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="286"/>
        <source>与服务 {0} 的连接已断开，正在重连…</source>
        <translation>Lost the service {0}; reconnecting…</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="293"/>
        <location filename="../../gui/main_window.py" line="372"/>
        <source>服务进程 {0}</source>
        <translation>Service process {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="294"/>
        <location filename="../../gui/main_window.py" line="384"/>
        <source>{0} · 服务进程 {1}</source>
        <translation>{0} · service pid {1}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="300"/>
        <source>本地</source>
        <translation>Local</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="309"/>
        <source>服务未启动</source>
        <translation>Service not running</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="347"/>
        <source>全部客户端 {0} 次/分钟</source>
        <translation>{0}/min from all clients</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="349"/>
        <source>{0} 次/分钟</source>
        <translation>{0}/min</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="352"/>
        <source>服务 {0} · 智能体 {1} 个，{2} · 控制台连接 {3} 个</source>
        <translation>Service {0} · agents: {1}, {2} · console connections: {3}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="360"/>
        <source>智能体</source>
        <translation>Agents</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="361"/>
        <source>工作进程</source>
        <translation>Workers</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="362"/>
        <source>控制台</source>
        <translation>Consoles</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="363"/>
        <source>命令</source>
        <translation>Commands</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="366"/>
        <source>{0}：{1} 个连接，最近一分钟 {2} 次请求</source>
        <translation>{0}: {1} connections, {2} requests in the last minute</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="437"/>
        <source>关闭记忆 Jiyi？</source>
        <translation>Close Jiyi?</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="438"/>
        <source>还有工作在进行：{0}。关闭会停下它，已经完成的部分会保留。</source>
        <translation>Work is under way: {0}. Closing stops it; what is done so far is kept.</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="441"/>
        <source>仍然关闭</source>
        <translation>Close anyway</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="442"/>
        <source>继续工作</source>
        <translation>Keep working</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="289"/>
        <location filename="../../gui/main_window.py" line="314"/>
        <source>私有服务未能启动：{0}</source>
        <translation>The private service did not start: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="392"/>
        <source>出错了：{0}</source>
        <translation>Something went wrong: {0}</translation>
    </message>
</context>
<context>
    <name>UpkeepPage</name>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="91"/>
        <source>整理（dream）</source>
        <translation>Consolidation (dream)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="92"/>
        <source>预览改动</source>
        <translation>Preview changes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="94"/>
        <source>运行整理</source>
        <translation>Run dream</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="105"/>
        <source>重建</source>
        <translation>Rebuild</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="106"/>
        <source>重建视图（重放事件日志）</source>
        <translation>Rebuild views (replay the event log)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="108"/>
        <location filename="../../gui/pages/upkeep_page.py" line="237"/>
        <location filename="../../gui/pages/upkeep_page.py" line="343"/>
        <source>重建向量索引</source>
        <translation>Rebuild vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="110"/>
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="128"/>
        <source>最近的报告</source>
        <translation>Recent reports</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="155"/>
        <source>预览：以下是整理会做的每一项改动（尚未执行）</source>
        <translation>Preview: every change the dream would make (nothing done yet)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="169"/>
        <source>已完成整理</source>
        <translation>Dream finished</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="184"/>
        <source>整理失败：{0}</source>
        <translation>Dream failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="193"/>
        <source>跳过</source>
        <translation>skipped</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="213"/>
        <source>没有需要改动的地方。</source>
        <translation>Nothing to change.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="197"/>
        <source>删除 {0}，补上 {1}</source>
        <translation>removed {0}, added {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="199"/>
        <source>{0} 项</source>
        <translation>{0} items</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="210"/>
        <source>…以及另外 {0} 次运行</source>
        <translation>…and {0} more runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="221"/>
        <source>成功</source>
        <translation>Succeeded</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="242"/>
        <source>正在重建…</source>
        <translation>Rebuilding…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="283"/>
        <source>已取消：正在重建的那部分保持原样。</source>
        <translation>Cancelled: the part being rebuilt was left as it was.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="285"/>
        <source>已取消：向量索引只重建了一部分，下次整理或重建会补全。</source>
        <translation>Cancelled: the vector index is only partly rebuilt; the next dream or rebuild completes it.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="289"/>
        <source>重建失败：{0}</source>
        <translation>Rebuild failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="293"/>
        <source>重建完成：{0}</source>
        <translation>Rebuilt: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="338"/>
        <source>已请求取消 {0}，等它在下一步停下…</source>
        <translation>Cancel requested for {0}; it stops at its next step…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="237"/>
        <location filename="../../gui/pages/upkeep_page.py" line="342"/>
        <source>重建视图</source>
        <translation>Rebuild views</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="177"/>
        <source>正在整理：{0}（第 {1}/{2} 步）</source>
        <translation>Dreaming: {0} (step {1} of {2})</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="179"/>
        <source>整理的每一步都做完了。</source>
        <translation>Every step of the dream is done.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="344"/>
        <source>导入 TaskWizard</source>
        <translation>TaskWizard import</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="345"/>
        <source>整理</source>
        <translation>Dream</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="363"/>
        <source>服务正在{0}（{1}，由别处启动）：{2}/{3}</source>
        <translation>The service is running {0} ({1}, started elsewhere): {2}/{3}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="379"/>
        <source>{0}（{1}）已完成</source>
        <translation>{0} ({1}) finished</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="381"/>
        <source>{0}（{1}）已取消</source>
        <translation>{0} ({1}) cancelled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="384"/>
        <source>{0}（{1}）失败：{2}</source>
        <translation>{0} ({1}) failed: {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="386"/>
        <source>服务上的{0}（{1}）已结束</source>
        <translation>{0} ({1}) on the service has ended</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="393"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="401"/>
        <source>整理报告</source>
        <translation>Dream reports</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="402"/>
        <source>还没有整理过</source>
        <translation>No dream yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="403"/>
        <source>桌面助手的整理记录</source>
        <translation>The desktop assistant&apos;s consolidation log</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="404"/>
        <source>还没有记录</source>
        <translation>Nothing recorded yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="427"/>
        <source>归档</source>
        <translation>filed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="428"/>
        <source>日审</source>
        <translation>daily review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="429"/>
        <source>活动</source>
        <translation>activity</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="430"/>
        <source>开始</source>
        <translation>started</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="431"/>
        <source>完成</source>
        <translation>finished</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="447"/>
        <source>话题</source>
        <translation>Topics</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="448"/>
        <source>归档问答</source>
        <translation>Turns filed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="449"/>
        <source>事实</source>
        <translation>Facts</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="450"/>
        <source>技能</source>
        <translation>Skills</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="451"/>
        <source>停用的事实</source>
        <translation>Deactivated facts</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="221"/>
        <location filename="../../gui/pages/upkeep_page.py" line="432"/>
        <source>失败</source>
        <translation>failed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/upkeep_page.py" line="433"/>
        <source>备注</source>
        <translation>note</translation>
    </message>
</context>
<context>
    <name>MemoryProbe</name>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="43"/>
        <source>问记忆一个问题，看会想起哪些问答、为什么</source>
        <translation>Ask memory a question: which turns it recalls, and why</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="45"/>
        <source>问记忆</source>
        <translation>Ask memory</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="48"/>
        <source>只是询问：不记录</source>
        <translation>Only asking: nothing is recorded</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="62"/>
        <source>请输入一个问题。</source>
        <translation>Type a question.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="84"/>
        <source>按词语和语义（混合检索）</source>
        <translation>By words and meaning (hybrid retrieval)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="86"/>
        <source>只按词语（降级：{0}）</source>
        <translation>By words only (degraded: {0})</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="87"/>
        <source>待嵌入 {0} 条</source>
        <translation>{0} waiting to be embedded</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="88"/>
        <source>{0}；{1}；{2} ms</source>
        <translation>{0}; {1}; {2} ms</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="98"/>
        <source>相关</source>
        <translation>related</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="98"/>
        <source>最近</source>
        <translation>recent</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="98"/>
        <source>相邻</source>
        <translation>neighbour</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="115"/>
        <source>为何</source>
        <translation>Why</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="116"/>
        <source>得分</source>
        <translation>Score</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="117"/>
        <source>词序</source>
        <translation>Word rank</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="118"/>
        <source>BM25</source>
        <translation>BM25</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="119"/>
        <source>相似</source>
        <translation>Similarity</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="120"/>
        <source>突出</source>
        <translation>Standing</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="121"/>
        <source>高于无关</source>
        <translation>Above unrelated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="122"/>
        <source>内容</source>
        <translation>Content</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="127"/>
        <source>问答</source>
        <translation>Turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="132"/>
        <source>任务</source>
        <translation>Tasks</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="134"/>
        <source>{0} {1}：{2}</source>
        <translation>{0} {1}: {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="136"/>
        <source>话题</source>
        <translation>Topics</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="136"/>
        <source>{0}：{1}</source>
        <translation>{0}: {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="137"/>
        <source>事实</source>
        <translation>Facts</translation>
    </message>
    <message>
        <location filename="../../gui/pages/memory_probe.py" line="145"/>
        <source>记忆里没有与此相关的问答。</source>
        <translation>Memory holds no turn related to this.</translation>
    </message>
</context>
<context>
    <name>OverviewPage</name>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="161"/>
        <source>正在打开…</source>
        <translation>Opening…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="65"/>
        <source>存储</source>
        <translation>Storage</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="67"/>
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="68"/>
        <source>写入</source>
        <translation>Writes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="69"/>
        <source>数据库</source>
        <translation>Database</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="70"/>
        <source>结构版本</source>
        <translation>Schema version</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="71"/>
        <source>占用空间</source>
        <translation>Disk use</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="75"/>
        <source>记忆内容</source>
        <translation>What it remembers</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="77"/>
        <source>应用库条目</source>
        <translation>App-KB entries</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="78"/>
        <source>运行档案</source>
        <translation>Episodes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="79"/>
        <source>事件</source>
        <translation>Events</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="80"/>
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="81"/>
        <source>进行中的运行</source>
        <translation>Runs under way</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="85"/>
        <source>语义回想</source>
        <translation>Semantic recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="87"/>
        <source>模式</source>
        <translation>Mode</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="88"/>
        <source>嵌入模型</source>
        <translation>Embedder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="89"/>
        <source>向量索引</source>
        <translation>Vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="90"/>
        <source>回想质量</source>
        <translation>Recall quality</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="91"/>
        <source>回想阈值</source>
        <translation>Recall threshold</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="94"/>
        <source>整理与错误</source>
        <translation>Dream and errors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="94"/>
        <source>上次整理</source>
        <translation>Last dream</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="94"/>
        <source>最近错误</source>
        <translation>Recent errors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="107"/>
        <source>重建向量索引</source>
        <translation>Rebuild vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="109"/>
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="120"/>
        <source>开始使用</source>
        <translation>Getting started</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="123"/>
        <source>连接智能体：保持控制台打开（或运行 jiyi serve），手机智能体和桌面助手通过本机套接字调用记忆（docs/protocol.md，示例 docs/agent-example.py）。</source>
        <translation>Connect an agent: keep the console open (or run jiyi serve); phone agents and desktop assistants reach memory over the local socket (docs/protocol.md, example docs/agent-example.py).</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="126"/>
        <source>导入 TaskWizard 的记忆：在应用库页点“导入 TaskWizard…”，或运行 jiyi import taskwizard 目录。</source>
        <translation>Import TaskWizard&apos;s memory: “Import TaskWizard…” on the App-KB page, or jiyi import taskwizard FOLDER.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="127"/>
        <source>先看看样子：jiyi demo --home ~/jiyi-demo 生成演示数据，再用 jiyi --home ~/jiyi-demo 打开。</source>
        <translation>Take a first look: jiyi demo --home ~/jiyi-demo fills a demo home; open it with jiyi --home ~/jiyi-demo.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="142"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="170"/>
        <source>只读状态目录里打不开（Chroma 打开时要写入）：回想只按任务的文字</source>
        <translation>Cannot be opened in a read-only home (Chroma writes as it opens): recall goes by the task's words</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="175"/>
        <source>向量索引缺失：{0}</source>
        <translation>Vector index missing: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="180"/>
        <source>向量索引落后：{0} 条运行未索引（{1} 条运行向量；jiyi rebuild-vec 可补齐）</source>
        <translation>Vector index behind: {0} runs not indexed ({1} run vectors; jiyi rebuild-vec catches up)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="186"/>
        <source>正常，{0} 条运行向量</source>
        <translation>OK, {0} episode vectors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="189"/>
        <source>有问题：{0}</source>
        <translation>Problem: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="195"/>
        <source>还没有设备的校准（使用模型的固定阈值）</source>
        <translation>No device calibrated yet (the model&apos;s fixed threshold is used)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="218"/>
        <source>只读。{0}</source>
        <translation>Read-only. {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="225"/>
        <source>{0:.1f} MB（不设上限）</source>
        <translation>{0:.1f} MB (no budget)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="227"/>
        <source>{0:.1f} MB，已到上限 {1} MB：写入被拒绝（JIYI_MAX_HOME_MB）</source>
        <translation>{0:.1f} MB, at its budget of {1} MB: writes are refused (JIYI_MAX_HOME_MB)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="256"/>
        <source>重建失败：{0}</source>
        <translation>Rebuild failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="202"/>
        <source>完整</source>
        <translation>full</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="159"/>
        <source>还没有设备连接过</source>
        <translation>no device has connected yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="202"/>
        <source>轻量</source>
        <translation>light</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="205"/>
        <source>还没有整理过</source>
        <translation>Not yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="209"/>
        <source>档案写入失败 {0} 次，回想失败 {1} 次</source>
        <translation>{0} archive write failures, {1} recall failures</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="237"/>
        <source>近 {0} 天没有评估过的运行</source>
        <translation>No runs scored in the last {0} days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="238"/>
        <source>近 {0} 天：评估 {1} 次 · Hit@1 {2:.2f} · 污染率 {3:.2f} · 弃答率 {4:.2f}</source>
        <translation>Last {0} days: {1} runs scored · Hit@1 {2:.2f} · contamination {3:.2f} · abstained {4:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="250"/>
        <source>正在重建…</source>
        <translation>Rebuilding…</translation>
    </message>
</context>
<context>
    <name>QueueView</name>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="69"/>
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="75"/>
        <location filename="../../gui/pages/learning_views.py" line="92"/>
        <location filename="../../gui/pages/learning_views.py" line="161"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="76"/>
        <location filename="../../gui/pages/learning_views.py" line="162"/>
        <source>来源</source>
        <translation>Source</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="77"/>
        <source>来源编号</source>
        <translation>Source id</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="78"/>
        <location filename="../../gui/pages/learning_views.py" line="172"/>
        <source>候选</source>
        <translation>Candidate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="79"/>
        <source>更新时间</source>
        <translation>Updated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="84"/>
        <source>审阅理由（必填）</source>
        <translation>Review reason (required)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="85"/>
        <source>批准</source>
        <translation>Approve</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="86"/>
        <source>拒绝</source>
        <translation>Reject</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="98"/>
        <source>队列是空的。有了学习授权后，记忆会自己发现完成的对话和有结果的运行，交给提取程序；它提出的候选经审阅后出现在这里。</source>
        <translation>The queue is empty. With a learning grant, Jiyi finds finished conversations and runs with a result by itself and hands them to the extractor; the candidates it proposes appear here for review.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="109"/>
        <source>待提取</source>
        <translation>Awaiting extraction</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="110"/>
        <source>提取中</source>
        <translation>Extracting</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="111"/>
        <source>待审阅</source>
        <translation>Awaiting review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="112"/>
        <source>审阅中</source>
        <translation>Reviewing</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="113"/>
        <source>已批准</source>
        <translation>Approved</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="114"/>
        <source>无可学</source>
        <translation>Nothing to learn</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="115"/>
        <source>已拒绝</source>
        <translation>Rejected</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="116"/>
        <source>已采用</source>
        <translation>Adopted</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="117"/>
        <source>采用被拒</source>
        <translation>Adoption refused</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="118"/>
        <source>失败</source>
        <translation>Failed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="119"/>
        <source>已停止</source>
        <translation>Stopped</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="123"/>
        <source>问答</source>
        <translation>Turn</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="123"/>
        <source>任务卡</source>
        <translation>Task card</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="123"/>
        <source>运行</source>
        <translation>Run</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="127"/>
        <source>用户</source>
        <translation>user</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="128"/>
        <source>助手</source>
        <translation>Assistant</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="129"/>
        <source>任务</source>
        <translation>Task</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="130"/>
        <source>结果</source>
        <translation>Result</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="131"/>
        <location filename="../../gui/pages/learning_views.py" line="178"/>
        <source>目标</source>
        <translation>Goal</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="132"/>
        <source>步骤</source>
        <translation>Steps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="133"/>
        <source>结局</source>
        <translation>Outcome</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="146"/>
        <source>选择一项，查看它的来源、候选和审阅。</source>
        <translation>Choose an item to see its source, candidate and review.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="165"/>
        <source>说明</source>
        <translation>Notes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="168"/>
        <source>这一项在等审阅：审阅程序会处理它。想自己决定，勾选上方的“由我审阅”，这里就会出现批准和拒绝。</source>
        <translation>This item waits for review: the reviewer worker will take it. To decide yourself, tick “I review” above, and Approve and Reject appear here.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="174"/>
        <source>操作</source>
        <translation>Operation</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="180"/>
        <source>原始来源</source>
        <translation>Original source</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="182"/>
        <source>来源已不存在。</source>
        <translation>The source no longer exists.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="185"/>
        <source>来源在此之后被修改过。</source>
        <translation>The source has changed since.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="188"/>
        <source>{0}：</source>
        <translation>{0}:</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="191"/>
        <source>目标结果</source>
        <translation>Objective</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="193"/>
        <source>本人</source>
        <translation>Owner</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="193"/>
        <source>审阅程序</source>
        <translation>Reviewer worker</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="195"/>
        <source>审阅</source>
        <translation>Review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="198"/>
        <source>提取</source>
        <translation>Extraction</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="205"/>
        <source>请先写下理由。</source>
        <translation>Write a reason first.</translation>
    </message>
</context>
<context>
    <name>RecallPage</name>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="100"/>
        <source>最近 7 天</source>
        <translation>Last 7 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="101"/>
        <source>最近 30 天</source>
        <translation>Last 30 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="102"/>
        <source>最近 90 天</source>
        <translation>Last 90 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="103"/>
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="108"/>
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="135"/>
        <source>还没有评估过的回想。手机智能体每完成一次运行（回想模式 shadow 或 on），Jiyi 就把它开始时的回想和真正打开的应用对比一次，结果按天显示在这里。想先看看样子：jiyi demo --home 一个新目录。</source>
        <translation>Nothing scored yet. Each time a phone agent finishes a run (recall mode shadow or on), Jiyi compares the recall made at its start with the app really opened, and shows the results here by day. For a first look: jiyi demo --home a-new-folder.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="153"/>
        <source>每日 Hit@1、命中率与污染率</source>
        <translation>Daily Hit@1, hit rate and contamination</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="156"/>
        <source>每日评估次数</source>
        <translation>Evaluations per day</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="159"/>
        <source>各应用的精确率（蓝）与召回率（绿），评估最多的 10 个</source>
        <translation>Precision (blue) and recall (green) of the 10 most evaluated apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="175"/>
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="175"/>
        <source>精确率</source>
        <translation>Precision</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="175"/>
        <source>召回率</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="175"/>
        <source>召回次数</source>
        <translation>Recalled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="175"/>
        <source>实际次数</source>
        <translation>Launched</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="120"/>
        <source>点击上方图表中的某一天，查看那天的运行</source>
        <translation>Click a day in the chart above to see its runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="203"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="209"/>
        <source>模式 {0} · 嵌入模型 {1} · 评估 {2} 次 · Hit@1 {3:.2f} · 污染率 {4:.2f} · 弃答率 {5:.2f}</source>
        <translation>Mode {0} · embedder {1} · {2} evaluations · Hit@1 {3:.2f} · contamination {4:.2f} · abstained {5:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="227"/>
        <source>命中率</source>
        <translation>Hit rate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="229"/>
        <source>污染率</source>
        <translation>Contamination</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="247"/>
        <source>Hit@1（7 日滚动）</source>
        <translation>Hit@1 (7-day rolling)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="309"/>
        <source>任务提到“{0}”</source>
        <translation>the task names “{0}”</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="311"/>
        <source>只凭任务用词（嵌入服务不可用），用词 {0:.2f}</source>
        <translation>By the task&apos;s words alone (embedding server unavailable), wording {0:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="312"/>
        <source>相似 {0:.2f}</source>
        <translation>similarity {0:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="314"/>
        <source>用词 {0:.2f}</source>
        <translation>wording {0:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="324"/>
        <source>依据：</source>
        <translation>Why: </translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="325"/>
        <source>是</source>
        <translation>yes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="325"/>
        <source>否</source>
        <translation>no</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="329"/>
        <source>召回 {0} · 实际 {1}</source>
        <translation>recalled {0} · actual {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="343"/>
        <source>运行</source>
        <translation>Run</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="343"/>
        <source>目标</source>
        <translation>Goal</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="343"/>
        <source>污染</source>
        <translation>Contam.</translation>
    </message>
</context>
<context>
    <name>RecallProbe</name>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="38"/>
        <source>输入一个任务，看回想会给出哪个应用、为什么</source>
        <translation>Type a task to see which app recall would give, and why</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="45"/>
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="46"/>
        <source>召回</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="49"/>
        <source>只是询问：不记录、不计分</source>
        <translation>Only asking: nothing is logged or scored</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="75"/>
        <source>请输入任务并选择设备。</source>
        <translation>Type a task and choose a device.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="107"/>
        <source>不召回：没有应用达到阈值 {0}</source>
        <translation>Abstains: no app reaches the threshold {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="131"/>
        <source>应用与最近的过去任务</source>
        <translation>App and nearest past task</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="134"/>
        <source>过去任务是回想索引里的文字（已脱敏）；点编号看逐字保存的运行档案。</source>
        <translation>Past tasks are as recall&apos;s index holds them (redacted); click an id for the run&apos;s record, kept verbatim.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="99"/>
        <source>召回 {0}：任务提到了“{1}”</source>
        <translation>Recalls {0}: the task names “{1}”</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="101"/>
        <source>召回 {0}</source>
        <translation>Recalled {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="101"/>
        <source>不召回 {0}</source>
        <translation>Not recalled {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="103"/>
        <source>：置信度 {0:.3f} {1} 阈值 {2}</source>
        <translation>: confidence {0:.3f} {1} threshold {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="109"/>
        <source>召回 {0}：得分 {1:.3f} ≥ 阈值 {2}</source>
        <translation>Recalls {0}: score {1:.3f} ≥ threshold {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="131"/>
        <source>得分</source>
        <translation>Score</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="131"/>
        <source>相似</source>
        <translation>Similar</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="131"/>
        <source>用词</source>
        <translation>Words</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="141"/>
        <source>这台设备还没有可比较的运行。</source>
        <translation>This device has no past runs to compare with yet.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="150"/>
        <source>最高 {0:.3f}，附近没有别的应用（领先按 0 计）</source>
        <translation>top {0:.3f}, no other app near (lead counted as 0)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="151"/>
        <source>最高 {0:.3f}，第二 {1} {2:.3f}，领先 {3:.3f}；置信度 = 最高 + {4} × 领先</source>
        <translation>top {0:.3f}, runner-up {1} {2:.3f}, lead {3:.3f}; confidence = top + {4} × lead</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="155"/>
        <source>参考评分（0.75×相似 + 0.25×关键词）：{0:.3f}</source>
        <translation>the reference&apos;s score (0.75 × similarity + 0.25 × keywords): {0:.3f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="156"/>
        <source>最高得分 {0:.3f}</source>
        <translation>top score {0:.3f}</translation>
    </message>
</context>
<context>
    <name>RecordPage</name>
    <message>
        <location filename="../../gui/pages/record_page.py" line="134"/>
        <source>没有符合筛选条件的记录；筛选隐藏了另外 {0} 条，选“全部”即可看到。</source>
        <translation>Nothing matches the filter; it hides {0} more: choose “All” to see them.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/record_page.py" line="137"/>
        <source>没有符合筛选条件的记录。</source>
        <translation>No record matches the filters.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/record_page.py" line="153"/>
        <source>失败：{0}</source>
        <translation>Failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/record_page.py" line="168"/>
        <source>已更新：{0}</source>
        <translation>Updated: {0}</translation>
    </message>
</context>
<context>
    <name>RecordsView</name>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="228"/>
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="235"/>
        <location filename="../../gui/pages/learning_views.py" line="289"/>
        <source>类别</source>
        <translation>Kind</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="236"/>
        <location filename="../../gui/pages/learning_views.py" line="251"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="237"/>
        <source>内容</source>
        <translation>Content</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="238"/>
        <location filename="../../gui/pages/learning_views.py" line="293"/>
        <source>到期</source>
        <translation>Expires</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="243"/>
        <source>改写内容</source>
        <translation>Rewrite the content</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="244"/>
        <source>保存修改</source>
        <translation>Save changes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="245"/>
        <source>撤销</source>
        <translation>Revoke</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="256"/>
        <source>还没有采用的记录。审阅通过、在授权之内的候选由记忆自己采用，之后列在这里，可撤销或编辑。</source>
        <translation>No adopted records yet. Candidates approved in review and within the grant are adopted by Jiyi itself and listed here, where you can revoke or edit them.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="265"/>
        <source>生效中</source>
        <translation>Active</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="266"/>
        <source>已移除</source>
        <translation>Removed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="267"/>
        <source>已撤销</source>
        <translation>Revoked</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="268"/>
        <source>已过期</source>
        <translation>Expired</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="282"/>
        <source>选择一条记录，查看它的出处。</source>
        <translation>Choose a record to see where it came from.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="286"/>
        <source>由学习管理</source>
        <translation>Managed by learning</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="286"/>
        <source>已归本人（不再自动替换）</source>
        <translation>Now yours (no longer replaced automatically)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="290"/>
        <source>版本</source>
        <translation>Version</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="291"/>
        <source>管理</source>
        <translation>Managed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="292"/>
        <source>存放于</source>
        <translation>Stored in</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="294"/>
        <source>来源</source>
        <translation>Source</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="295"/>
        <source>操作</source>
        <translation>Operation</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="296"/>
        <source>审阅</source>
        <translation>Review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="297"/>
        <source>授权</source>
        <translation>Grant</translation>
    </message>
    <message>
        <location filename="../../gui/pages/learning_views.py" line="301"/>
        <source>说明</source>
        <translation>Notes</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../gui/settings_dialog.py" line="37"/>
        <source>设置</source>
        <translation>Settings</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="39"/>
        <source>换一个状态目录：jiyi --home DIR 或 JIYI_HOME</source>
        <translation>Use another home with jiyi --home DIR or JIYI_HOME</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="42"/>
        <source>影子（只记录，不给智能体）</source>
        <translation>Shadow (logged, never given to the agent)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="43"/>
        <source>开启（给智能体已批准的经验）</source>
        <translation>On (agents get approved lessons)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="44"/>
        <source>关闭</source>
        <translation>Off</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="50"/>
        <source>{0}（仅供测试）</source>
        <translation>{0} (tests only)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="54"/>
        <source>跟随系统</source>
        <translation>System</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="54"/>
        <source>浅色</source>
        <translation>Light</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="54"/>
        <source>深色</source>
        <translation>Dark</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="62"/>
        <source>回想模式和嵌入模型写入状态目录的 config.toml，下次打开时生效；换嵌入模型后请重建向量索引。</source>
        <translation>Recall mode and embedder are written to the home&apos;s config.toml and apply the next time it opens; rebuild the vector index after changing the embedder.</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="70"/>
        <source>回想模式和嵌入模型写在状态目录的 config.toml 里：{0}</source>
        <translation>The recall mode and the embedding model are kept in the home's config.toml: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="72"/>
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="73"/>
        <source>回想模式</source>
        <translation>Recall mode</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="74"/>
        <source>嵌入模型</source>
        <translation>Embedder</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="75"/>
        <source>配色</source>
        <translation>Colours</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="76"/>
        <source>语言</source>
        <translation>Language</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="77"/>
        <source>语言在下次打开时生效。</source>
        <translation>The language applies the next time the console opens.</translation>
    </message>
</context>
<context>
    <name>SkillsPage</name>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="66"/>
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="73"/>
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="74"/>
        <location filename="../../gui/pages/skills_page.py" line="92"/>
        <location filename="../../gui/pages/skills_page.py" line="131"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="75"/>
        <source>内容</source>
        <translation>Text</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="76"/>
        <source>更新时间</source>
        <translation>Updated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="80"/>
        <source>批准启用</source>
        <translation>Approve</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="81"/>
        <source>拒绝</source>
        <translation>Reject</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="82"/>
        <source>停用</source>
        <translation>Deactivate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="98"/>
        <source>还没有技能。桌面助手整理对话时可以根据你的原话提出技能草稿；草稿只有在你于此处批准后才会启用。</source>
        <translation>No skills yet. When the desktop assistant files conversations it may propose skill drafts from your own words; a draft takes effect only after you approve it here.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="104"/>
        <source>待批准</source>
        <translation>Awaiting approval</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="105"/>
        <source>已启用</source>
        <translation>Active</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="106"/>
        <source>已停用</source>
        <translation>Inactive</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="107"/>
        <source>已拒绝</source>
        <translation>Rejected</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="120"/>
        <source>选择一个技能查看它的内容和来源。</source>
        <translation>Choose a skill to see its text and where it came from.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="133"/>
        <source>来源问答</source>
        <translation>Source turn</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="139"/>
        <location filename="../../gui/pages/skills_page.py" line="147"/>
        <source>决定者</source>
        <translation>Decided by</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="83"/>
        <source>撤销助手的启用</source>
        <translation>Undo the assistant&apos;s activation</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="84"/>
        <source>助手按你的请求启用了它；撤销后它回到待批准的草稿</source>
        <translation>The assistant activated it at your request; undoing puts it back among the drafts awaiting approval</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="139"/>
        <source>助手，按你在这轮对话中的请求</source>
        <translation>The assistant, at your request in that turn</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="140"/>
        <source>请求所在问答</source>
        <translation>Turn of the request</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="142"/>
        <source>不是你的意思？点「撤销助手的启用」，它回到待批准的草稿。</source>
        <translation>Not what you meant? Click “Undo the assistant&apos;s activation” and it goes back among the drafts.</translation>
    </message>
</context>
<context>
    <name>TopicsPage</name>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="69"/>
        <source>按标题或概括搜索话题</source>
        <translation>Search topics by title or summary</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="113"/>
        <source>工作日</source>
        <translation>Workday</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="114"/>
        <location filename="../../gui/pages/topics_page.py" line="234"/>
        <source>问答</source>
        <translation>Turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="115"/>
        <location filename="../../gui/pages/topics_page.py" line="131"/>
        <source>话题</source>
        <translation>Topic</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="116"/>
        <source>复核</source>
        <translation>Review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="116"/>
        <source>已复核</source>
        <translation>reviewed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="132"/>
        <source>当日概括</source>
        <translation>That day&apos;s segment</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="133"/>
        <source>问答数</source>
        <translation>Turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="79"/>
        <source>更多问答</source>
        <translation>More turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="106"/>
        <source>选择一个工作日和话题。</source>
        <translation>Choose a workday and a topic.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="153"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="161"/>
        <source>无活动记录</source>
        <translation>no activity yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="161"/>
        <source>空闲 {0} 分钟</source>
        <translation>idle {0} min</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="178"/>
        <source>还没有话题。桌面助手同步的每轮问答（interaction.remember）在它空闲整理时归入话题（memory.maintenance.commit），然后按工作日列在这里。</source>
        <translation>No topics yet. Each turn the desktop assistant syncs (interaction.remember) is filed into topics when it tidies up while idle (memory.maintenance.commit), then listed here by workday.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="234"/>
        <source>{0} 条问答</source>
        <translation>{0} turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="234"/>
        <source>每日概括</source>
        <translation>Daily segments</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="234"/>
        <source>关联任务</source>
        <translation>Linked tasks</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="235"/>
        <source>用户</source>
        <translation>User</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="235"/>
        <source>助手</source>
        <translation>Assistant</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="232"/>
        <source>任务</source>
        <translation>task</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="163"/>
        <source>工作日 {0} · 待整理 {1} 条问答 · {2}</source>
        <translation>Workday {0} · {1} turns to file · {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="164"/>
        <source>今天是工作日 {0}（工作日从北京时间 03:30 起算）</source>
        <translation>Today is workday {0} (a workday starts at 03:30 Beijing time)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="166"/>
        <source>{0} 待复核</source>
        <translation>{0} awaits its review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="167"/>
        <source>前一工作日 {0} 还没有复核</source>
        <translation>the previous workday, {0}, is not reviewed yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="232"/>
        <source>闲聊</source>
        <translation>chat</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="232"/>
        <source>讨论</source>
        <translation>discussion</translation>
    </message>
</context>
<context>
    <name>Words</name>
    <message>
        <location filename="../../gui/words.py" line="22"/>
        <source>，</source>
        <translation>, </translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="27"/>
        <source>；</source>
        <translation>; </translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="33"/>
        <source>纠正开错的别名</source>
        <translation>Correct wrong aliases</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="34"/>
        <source>合并重复条目</source>
        <translation>Merge duplicates</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="35"/>
        <source>淘汰过期条目</source>
        <translation>Evict stale entries</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="36"/>
        <source>折叠旧运行档案</source>
        <translation>Fold old episodes</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="37"/>
        <source>向量索引对账</source>
        <translation>Reconcile the vector index</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="38"/>
        <source>重新校准回想阈值</source>
        <translation>Recalibrate recall thresholds</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="44"/>
        <source>{0}：{1}</source>
        <translation>{0}: {1}</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="49"/>
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="54"/>
        <source>「{0}」</source>
        <translation>“{0}”</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="80"/>
        <source>回想记录里的任务文字（目标、依据）已脱敏，和智能体当时收到的一样；运行档案本身逐字保存。</source>
        <translation>Task text in recall&apos;s record (goals, reasons) is redacted, as the agent was given it; the run&apos;s own record is kept verbatim.</translation>
    </message>
</context>
</TS>
