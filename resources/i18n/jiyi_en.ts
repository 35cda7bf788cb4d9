<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>AliasEditor</name>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="69"/>
        <source>教它一个叫法（全局用户别名，最高信任）</source>
        <translation>Teach a name (global user alias, highest trust)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="71"/>
        <source>名称，例如 绿泡泡</source>
        <translation>Name, e.g. 绿泡泡</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="73"/>
        <source>包名，例如 com.tencent.mm</source>
        <translation>Package, e.g. com.tencent.mm</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="74"/>
        <source>保存</source>
        <translation>Save</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="75"/>
        <source>忘记这个叫法</source>
        <translation>Forget this name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="76"/>
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="77"/>
        <source>重做</source>
        <translation>Redo</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="87"/>
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="88"/>
        <location filename="../../gui/pages/alias_editor.py" line="219"/>
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="95"/>
        <source>试试解析</source>
        <translation>Try a name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="97"/>
        <source>输入一个叫法，看它会打开哪个应用</source>
        <translation>Type a name to see which app it would open</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="99"/>
        <source>不限设备</source>
        <translation>Any device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="108"/>
        <source>这个叫法的历史</source>
        <translation>History of this name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="133"/>
        <source>已保存：{0} → {1}</source>
        <translation>Saved: {0} → {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="138"/>
        <source>设置 {0}</source>
        <translation>Set {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="147"/>
        <source>已忘记 {0}（设备清单条目不动）</source>
        <translation>Forgot {0} (device entries kept)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="148"/>
        <source>忘记 {0}</source>
        <translation>Forget {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="150"/>
        <source>{0} 没有可忘记的用户或学习别名</source>
        <translation>{0} has no user or learned alias to forget</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="159"/>
        <source>已撤回改动 {0}</source>
        <translation>Reverted change {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="186"/>
        <source>改动</source>
        <translation>change</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="194"/>
        <source>没有历史</source>
        <translation>No history</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="204"/>
        <source>可直接打开</source>
        <translation>Safe to open</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="205"/>
        <source>需要模型选择</source>
        <translation>Needs the model to choose</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="206"/>
        <source>不认识</source>
        <translation>Unknown</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="210"/>
        <source>已安装</source>
        <translation>installed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="210"/>
        <source>未安装</source>
        <translation>not installed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="220"/>
        <source>标准名</source>
        <translation>Label</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="221"/>
        <source>匹配到</source>
        <translation>Matched</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="222"/>
        <source>证据</source>
        <translation>Evidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="223"/>
        <source>相似度</source>
        <translation>Similarity</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="224"/>
        <source>先验</source>
        <translation>Prior</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="225"/>
        <source>得分</source>
        <translation>Score</translation>
    </message>
</context>
<context>
    <name>AliasTableModel</name>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="65"/>
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="66"/>
        <source>标准名</source>
        <translation>Label</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="67"/>
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="68"/>
        <source>来源</source>
        <translation>Source</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="69"/>
        <source>范围</source>
        <translation>Scope</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="70"/>
        <source>置信度</source>
        <translation>Confidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="71"/>
        <source>成功次数</source>
        <translation>Successes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="72"/>
        <source>最近成功</source>
        <translation>Last success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="73"/>
        <source>状态</source>
        <translation>State</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="76"/>
        <source>用户</source>
        <translation>User</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="77"/>
        <source>设备清单</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="78"/>
        <source>学习</source>
        <translation>Learned</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="79"/>
        <source>别名</source>
        <translation>Alias</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="90"/>
        <source>首次出现 {0}，最近出现 {1}</source>
        <translation>First seen {0}, last seen {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="101"/>
        <source>全局</source>
        <translation>Global</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="109"/>
        <source>已失效</source>
        <translation>Stale</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="109"/>
        <source>有效</source>
        <translation>Live</translation>
    </message>
</context>
<context>
    <name>AppKbPage</name>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="127"/>
        <source>搜索名称、标准名或包名</source>
        <translation>Search names, labels or packages</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="130"/>
        <source>全部设备</source>
        <translation>All devices</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="132"/>
        <source>全部来源</source>
        <translation>All sources</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="136"/>
        <source>显示已失效</source>
        <translation>Show stale</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="196"/>
        <source>信任顺序：用户 &gt; 设备清单 &gt; 学习。设备清单条目来自设备，只读；在右侧教它新的叫法或让它忘记。</source>
        <translation>Trust: user &gt; device &gt; learned. Device entries come from the devices and are read-only; teach or forget names on the right.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="193"/>
        <location filename="../../gui/pages/appkb_page.py" line="331"/>
        <source>显示 {0}{1} 条，共 {2} 条</source>
        <translation>Showing {0}{1} of {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="199"/>
        <source>导入 TaskWizard…</source>
        <translation>Import TaskWizard…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="200"/>
        <source>导出 TaskWizard…</source>
        <translation>Export TaskWizard…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="265"/>
        <source>选择 TaskWizard 的 memory 目录</source>
        <translation>Choose TaskWizard&apos;s memory folder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="278"/>
        <source>{0}：已导入过</source>
        <translation>{0}: imported before</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="280"/>
        <source>{0}：导入 {1} 条，跳过 {2} 条损坏</source>
        <translation>{0}: imported {1}, skipped {2} corrupt</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="295"/>
        <source>已导出 {0} 个应用库事件、{1} 条档案到 {2}</source>
        <translation>Exported {0} App-KB events and {1} episode records to {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="302"/>
        <source>没有完成：{0}</source>
        <translation>Not done: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="312"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
</context>
<context>
    <name>BundlesPage</name>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="56"/>
        <source>资料夹 / 文档</source>
        <translation>Bundle / document</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="56"/>
        <source>修订</source>
        <translation>Revision</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="64"/>
        <source>预览</source>
        <translation>Preview</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="65"/>
        <source>编辑</source>
        <translation>Edit</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="66"/>
        <source>选择左边的文档。</source>
        <translation>Choose a document on the left.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="68"/>
        <source>保存</source>
        <translation>Save</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="70"/>
        <source>新建文档…</source>
        <translation>New document…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="72"/>
        <source>打开文件夹</source>
        <translation>Open folder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="74"/>
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="106"/>
        <source>日程</source>
        <translation>Schedule</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="106"/>
        <source>项目</source>
        <translation>Project</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="118"/>
        <source>运行记录</source>
        <translation>Runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="141"/>
        <source>{0} 已被别人改到修订 {1}；你的编辑基于修订 {2}，保存时会提示冲突。</source>
        <translation>{0} was changed by someone else to revision {1}; your edit is based on revision {2}, so saving will show the conflict.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="177"/>
        <source>（镜像文件缺失）</source>
        <translation> (the mirrored file is missing)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="178"/>
        <source>（镜像文件在 Jiyi 之外被改过；下次保存会把那份另存）</source>
        <translation> (the mirrored file was edited outside Jiyi; the next save keeps that version beside it)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="181"/>
        <source>{0} / {1} · 修订 {2}</source>
        <translation>{0} / {1} · revision {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="215"/>
        <source>；文件在外部被改过的版本已另存为 {0}</source>
        <translation>; the version edited outside was kept as {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="237"/>
        <source>失败：{0}</source>
        <translation>Failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="251"/>
        <source>新建文档</source>
        <translation>New document</translation>
    </message>
    <message>
        <location filename="../../gui/pages/bundles_page.py" line="251"/>
        <source>文件名（如 notes.md）：</source>
        <translation>File name (e.g. notes.md):</translation>
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
    <name>EpisodeTableModel</name>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="58"/>
        <source>结束时间</source>
        <translation>Ended</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="59"/>
        <source>目标</source>
        <translation>Goal</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="60"/>
        <source>应用</source>
        <translation>Apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="61"/>
        <source>结果</source>
        <translation>Outcome</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="62"/>
        <source>步数</source>
        <translation>Steps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="63"/>
        <source>令牌</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="64"/>
        <source>验收</source>
        <translation>Verifier</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="65"/>
        <source>回想</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="78"/>
        <source>成功</source>
        <translation>Success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="78"/>
        <source>失败</source>
        <translation>Failure</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="82"/>
        <source>已撤销</source>
        <translation>Revoked</translation>
    </message>
</context>
<context>
    <name>EpisodesPage</name>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="141"/>
        <source>搜索目标</source>
        <translation>Search goals</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="143"/>
        <source>应用包名</source>
        <translation>App package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="145"/>
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="147"/>
        <source>全部结果</source>
        <translation>All outcomes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="147"/>
        <source>成功</source>
        <translation>Success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="147"/>
        <source>失败</source>
        <translation>Failure</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="151"/>
        <source>全部时间</source>
        <translation>All time</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="152"/>
        <source>最近 1 天</source>
        <translation>Last day</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="153"/>
        <source>最近 7 天</source>
        <translation>Last 7 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="154"/>
        <source>最近 30 天</source>
        <translation>Last 30 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="173"/>
        <source>撤销回想</source>
        <translation>Revoke from recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="174"/>
        <source>恢复回想</source>
        <translation>Restore to recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="239"/>
        <source>失败：{0}</source>
        <translation>Failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="277"/>
        <source>应用：{0}&#x3000;令牌：{1}</source>
        <translation>Apps: {0}   Tokens: {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="278"/>
        <source>注入的经验：{0}</source>
        <translation>Lessons given: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="308"/>
        <source>依据：≈ {0} ({1})</source>
        <translation>Why: ≈ {0} ({1})</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="279"/>
        <source>工具事件</source>
        <translation>Tool events</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="298"/>
        <source>召回：{0}&#x3000;实际：{1}&#x3000;Hit@1：{2}&#x3000;污染：{3}</source>
        <translation>Recalled: {0}   Actual: {1}   Hit@1: {2}   Contaminated: {3}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="304"/>
        <source>回想</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="294"/>
        <source>这次运行没有回想记录</source>
        <translation>This run has no recall record</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="302"/>
        <source>是</source>
        <translation>yes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="302"/>
        <source>否</source>
        <translation>no</translation>
    </message>
</context>
<context>
    <name>FactsPage</name>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="40"/>
        <source>全部范围</source>
        <translation>All scopes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="44"/>
        <source>全部状态</source>
        <translation>All statuses</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="48"/>
        <source>搜索事实内容</source>
        <translation>Search facts</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="59"/>
        <source>事实</source>
        <translation>Fact</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="60"/>
        <source>范围</source>
        <translation>Scope</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="61"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="62"/>
        <source>佐证工作日</source>
        <translation>Workdays with evidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="63"/>
        <source>更新时间</source>
        <translation>Updated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="67"/>
        <source>确认有效</source>
        <translation>Confirm</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="68"/>
        <source>停用</source>
        <translation>Deactivate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="80"/>
        <source>用户画像</source>
        <translation>Profile</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="80"/>
        <source>项目</source>
        <translation>Project</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="80"/>
        <source>设备环境</source>
        <translation>Environment</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="83"/>
        <source>候选</source>
        <translation>Candidate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="83"/>
        <source>有效</source>
        <translation>Active</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="83"/>
        <source>已停用</source>
        <translation>Inactive</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="96"/>
        <source>选择一条事实查看它的证据。</source>
        <translation>Choose a fact to see its evidence.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="102"/>
        <source>证据</source>
        <translation>Evidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="99"/>
        <source>用户原话</source>
        <translation>user&apos;s words</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="99"/>
        <source>助手复述</source>
        <translation>assistant&apos;s restatement</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="99"/>
        <source>任务结果</source>
        <translation>task result</translation>
    </message>
    <message>
        <location filename="../../gui/pages/facts_page.py" line="112"/>
        <source>（不计为独立佐证）</source>
        <translation>(not independent evidence)</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gui/main_window.py" line="47"/>
        <source>记忆 Jiyi — {0}</source>
        <translation>Jiyi — {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="53"/>
        <source>概览</source>
        <translation>Overview</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="55"/>
        <source>应用库 App-KB</source>
        <translation>App-KB</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="56"/>
        <source>运行档案</source>
        <translation>Episodes</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="58"/>
        <source>回想质量</source>
        <translation>Recall quality</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="61"/>
        <source>资料夹</source>
        <translation>Bundles</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="63"/>
        <source>技能审批</source>
        <translation>Skills</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="65"/>
        <source>长期事实</source>
        <translation>Facts</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="67"/>
        <source>话题与工作日</source>
        <translation>Topics and workdays</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="69"/>
        <source>维护</source>
        <translation>Maintenance</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="99"/>
        <source>状态目录：{0}</source>
        <translation>Home: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="120"/>
        <source>设置…</source>
        <translation>Settings…</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="151"/>
        <source>服务未启动：{0}</source>
        <translation>Service not running: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="153"/>
        <source>服务未启动</source>
        <translation>Service not running</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="156"/>
        <source>服务 {0} · {1} 个连接 · {2} 次/分钟</source>
        <translation>Service {0} · {1} connected · {2}/min</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="163"/>
        <source>出错了：{0}</source>
        <translation>Something went wrong: {0}</translation>
    </message>
</context>
<context>
    <name>MaintenancePage</name>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="52"/>
        <source>整理（dream）</source>
        <translation>Consolidation (dream)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="53"/>
        <source>预览改动</source>
        <translation>Preview changes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="55"/>
        <source>运行整理</source>
        <translation>Run dream</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="66"/>
        <source>重建</source>
        <translation>Rebuild</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="67"/>
        <source>重建视图（重放事件日志）</source>
        <translation>Rebuild views (replay the event log)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="69"/>
        <source>重建向量索引</source>
        <translation>Rebuild vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="71"/>
        <source>取消</source>
        <translation>Cancel</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="88"/>
        <source>最近的报告</source>
        <translation>Recent reports</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="113"/>
        <source>预览：以下是整理会做的每一项改动（尚未执行）</source>
        <translation>Preview: every change the dream would make (nothing done yet)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="125"/>
        <source>已完成整理</source>
        <translation>Dream finished</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="132"/>
        <source>整理失败：{0}</source>
        <translation>Dream failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="141"/>
        <source>跳过</source>
        <translation>skipped</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="155"/>
        <source>没有需要改动的地方。</source>
        <translation>Nothing to change.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="145"/>
        <source>删除 {0}，补上 {1}</source>
        <translation>removed {0}, added {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="147"/>
        <source>{0} 项</source>
        <translation>{0} items</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="175"/>
        <source>正在重建…</source>
        <translation>Rebuilding…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="197"/>
        <source>已取消：正在重建的那部分保持原样。</source>
        <translation>Cancelled: the part being rebuilt was left as it was.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="199"/>
        <source>已取消：向量索引只重建了一部分，下次整理或重建会补全。</source>
        <translation>Cancelled: the vector index is only partly rebuilt; the next dream or rebuild completes it.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="203"/>
        <source>重建失败：{0}</source>
        <translation>Rebuild failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="207"/>
        <source>重建完成：{0}</source>
        <translation>Rebuilt: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="213"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="221"/>
        <source>整理报告</source>
        <translation>Dream reports</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="222"/>
        <source>还没有整理过</source>
        <translation>No dream yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="223"/>
        <source>桌面助手的整理记录</source>
        <translation>The desktop assistant&apos;s consolidation log</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="224"/>
        <source>还没有记录</source>
        <translation>Nothing recorded yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="247"/>
        <source>归档</source>
        <translation>filed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="248"/>
        <source>日审</source>
        <translation>daily review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="249"/>
        <source>活动</source>
        <translation>activity</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="250"/>
        <source>开始</source>
        <translation>started</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="251"/>
        <source>完成</source>
        <translation>finished</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="252"/>
        <source>失败</source>
        <translation>failed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/maintenance_page.py" line="253"/>
        <source>备注</source>
        <translation>note</translation>
    </message>
</context>
<context>
    <name>OverviewPage</name>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="42"/>
        <source>存储</source>
        <translation>Storage</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="44"/>
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="45"/>
        <source>数据库</source>
        <translation>Database</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="46"/>
        <source>结构版本</source>
        <translation>Schema version</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="47"/>
        <source>占用空间</source>
        <translation>Disk use</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="51"/>
        <source>记忆内容</source>
        <translation>What it remembers</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="53"/>
        <source>应用库条目</source>
        <translation>App-KB entries</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="54"/>
        <source>运行档案</source>
        <translation>Episodes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="55"/>
        <source>事件</source>
        <translation>Events</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="56"/>
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="57"/>
        <source>进行中的运行</source>
        <translation>Runs under way</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="61"/>
        <source>语义回想</source>
        <translation>Semantic recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="63"/>
        <source>模式</source>
        <translation>Mode</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="64"/>
        <source>嵌入模型</source>
        <translation>Embedder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="65"/>
        <source>向量索引</source>
        <translation>Vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="66"/>
        <source>回想质量</source>
        <translation>Recall quality</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="69"/>
        <source>整理与错误</source>
        <translation>Dream and errors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="69"/>
        <source>上次整理</source>
        <translation>Last dream</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="69"/>
        <source>最近错误</source>
        <translation>Recent errors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="80"/>
        <source>重建向量索引</source>
        <translation>Rebuild vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="82"/>
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="96"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="113"/>
        <source>无</source>
        <translation>none</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="117"/>
        <source>正常，{0} 条运行向量</source>
        <translation>OK, {0} episode vectors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="120"/>
        <source>有问题：{0}</source>
        <translation>Problem: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="144"/>
        <source>{0:.1f} MB（不设上限）</source>
        <translation>{0:.1f} MB (no budget)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="146"/>
        <source>{0:.1f} MB，已到上限 {1} MB：写入被拒绝（JIYI_MAX_HOME_MB）</source>
        <translation>{0:.1f} MB, at its budget of {1} MB: writes are refused (JIYI_MAX_HOME_MB)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="175"/>
        <source>重建失败：{0}</source>
        <translation>Rebuild failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="128"/>
        <source>完整</source>
        <translation>full</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="128"/>
        <source>轻量</source>
        <translation>light</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="131"/>
        <source>还没有整理过</source>
        <translation>Not yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="135"/>
        <source>档案写入失败 {0} 次，回想失败 {1} 次</source>
        <translation>{0} archive write failures, {1} recall failures</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="156"/>
        <source>近 {0} 天没有评估过的运行</source>
        <translation>No runs scored in the last {0} days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="157"/>
        <source>近 {0} 天：评估 {1} 次 · Hit@1 {2:.2f} · 污染率 {3:.2f} · 弃答率 {4:.2f}</source>
        <translation>Last {0} days: {1} runs scored · Hit@1 {2:.2f} · contamination {3:.2f} · abstained {4:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="169"/>
        <source>正在重建…</source>
        <translation>Rebuilding…</translation>
    </message>
</context>
<context>
    <name>RecallPage</name>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="75"/>
        <source>最近 7 天</source>
        <translation>Last 7 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="76"/>
        <source>最近 30 天</source>
        <translation>Last 30 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="77"/>
        <source>最近 90 天</source>
        <translation>Last 90 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="78"/>
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="83"/>
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="119"/>
        <source>每日 Hit@1、命中率与污染率</source>
        <translation>Daily Hit@1, hit rate and contamination</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="122"/>
        <source>每日评估次数</source>
        <translation>Evaluations per day</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="124"/>
        <source>各应用的精确率（蓝）与召回率（绿），评估最多的 10 个</source>
        <translation>Precision (blue) and recall (green) of the 10 most evaluated apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="136"/>
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="136"/>
        <source>精确率</source>
        <translation>Precision</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="136"/>
        <source>召回率</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="136"/>
        <source>召回次数</source>
        <translation>Recalled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="136"/>
        <source>实际次数</source>
        <translation>Launched</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="95"/>
        <source>点击上方图表中的某一天，查看那天的运行</source>
        <translation>Click a day in the chart above to see its runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="158"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="164"/>
        <source>模式 {0} · 嵌入模型 {1} · 评估 {2} 次 · Hit@1 {3:.2f} · 污染率 {4:.2f} · 弃答率 {5:.2f}</source>
        <translation>Mode {0} · embedder {1} · {2} evaluations · Hit@1 {3:.2f} · contamination {4:.2f} · abstained {5:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="181"/>
        <source>命中率</source>
        <translation>Hit rate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="182"/>
        <source>污染率</source>
        <translation>Contamination</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="198"/>
        <source>Hit@1（7 日滚动）</source>
        <translation>Hit@1 (7-day rolling)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="248"/>
        <source>任务提到“{0}”</source>
        <translation>the task names “{0}”</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="250"/>
        <source>相似 {0:.2f}</source>
        <translation>similarity {0:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="252"/>
        <source>用词 {0:.2f}</source>
        <translation>wording {0:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="261"/>
        <source>依据：</source>
        <translation>Why: </translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="274"/>
        <source>运行</source>
        <translation>Run</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="274"/>
        <source>目标</source>
        <translation>Goal</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="274"/>
        <source>召回</source>
        <translation>Recalled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="274"/>
        <source>实际</source>
        <translation>Actual</translation>
    </message>
</context>
<context>
    <name>RecallProbe</name>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="35"/>
        <source>输入一个任务，看回想会给出哪个应用、为什么</source>
        <translation>Type a task to see which app recall would give, and why</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="42"/>
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="43"/>
        <source>召回</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="46"/>
        <source>只是询问：不记录、不计分</source>
        <translation>Only asking: nothing is logged or scored</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="71"/>
        <source>请输入任务并选择设备。</source>
        <translation>Type a task and choose a device.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="89"/>
        <source>不召回：没有应用达到阈值 {0}</source>
        <translation>Abstains: no app reaches the threshold {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="91"/>
        <source>召回 {0}：任务提到了“{1}”</source>
        <translation>Recalls {0}: the task names “{1}”</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="93"/>
        <source>召回 {0}：得分 {1:.3f} ≥ 阈值 {2}</source>
        <translation>Recalls {0}: score {1:.3f} ≥ threshold {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="108"/>
        <source>应用</source>
        <translation>App</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="108"/>
        <source>得分</source>
        <translation>Score</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="108"/>
        <source>相似</source>
        <translation>Similarity</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="108"/>
        <source>用词</source>
        <translation>Wording</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="108"/>
        <source>最近的过去任务</source>
        <translation>Nearest past task</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_probe.py" line="111"/>
        <source>这台设备还没有可比较的运行。</source>
        <translation>This device has no past runs to compare with yet.</translation>
    </message>
</context>
<context>
    <name>RecordPage</name>
    <message>
        <location filename="../../gui/pages/record_page.py" line="110"/>
        <source>失败：{0}</source>
        <translation>Failed: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/record_page.py" line="124"/>
        <source>已更新：{0}</source>
        <translation>Updated: {0}</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../gui/settings_dialog.py" line="36"/>
        <source>设置</source>
        <translation>Settings</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="38"/>
        <source>换一个状态目录：jiyi --home DIR 或 JIYI_HOME</source>
        <translation>Use another home with jiyi --home DIR or JIYI_HOME</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="41"/>
        <source>影子（只记录，不给智能体）</source>
        <translation>Shadow (logged, never given to the agent)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="42"/>
        <source>开启（给智能体已批准的经验）</source>
        <translation>On (agents get approved lessons)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="43"/>
        <source>关闭</source>
        <translation>Off</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="49"/>
        <source>{0}（仅供测试）</source>
        <translation>{0} (tests only)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="53"/>
        <source>跟随系统</source>
        <translation>System</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="53"/>
        <source>浅色</source>
        <translation>Light</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="53"/>
        <source>深色</source>
        <translation>Dark</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="61"/>
        <source>回想模式和嵌入模型写入状态目录的 config.toml，下次打开时生效；换嵌入模型后请重建向量索引。</source>
        <translation>Recall mode and embedder are written to the home&apos;s config.toml and apply the next time it opens; rebuild the vector index after changing the embedder.</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="65"/>
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="66"/>
        <source>回想模式</source>
        <translation>Recall mode</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="67"/>
        <source>嵌入模型</source>
        <translation>Embedder</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="68"/>
        <source>配色</source>
        <translation>Colours</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="69"/>
        <source>语言</source>
        <translation>Language</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="70"/>
        <source>语言在下次打开时生效。</source>
        <translation>The language applies the next time the console opens.</translation>
    </message>
</context>
<context>
    <name>SkillsPage</name>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="40"/>
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="47"/>
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="48"/>
        <location filename="../../gui/pages/skills_page.py" line="63"/>
        <location filename="../../gui/pages/skills_page.py" line="95"/>
        <source>状态</source>
        <translation>Status</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="49"/>
        <source>内容</source>
        <translation>Text</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="50"/>
        <source>更新时间</source>
        <translation>Updated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="54"/>
        <source>批准启用</source>
        <translation>Approve</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="55"/>
        <source>拒绝</source>
        <translation>Reject</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="56"/>
        <source>停用</source>
        <translation>Deactivate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="70"/>
        <source>待批准</source>
        <translation>Awaiting approval</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="71"/>
        <source>已启用</source>
        <translation>Active</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="72"/>
        <source>已停用</source>
        <translation>Inactive</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="73"/>
        <source>已拒绝</source>
        <translation>Rejected</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="86"/>
        <source>选择一个技能查看它的内容和来源。</source>
        <translation>Choose a skill to see its text and where it came from.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="97"/>
        <source>来源问答</source>
        <translation>Source turn</translation>
    </message>
    <message>
        <location filename="../../gui/pages/skills_page.py" line="106"/>
        <source>决定者</source>
        <translation>Decided by</translation>
    </message>
</context>
<context>
    <name>TopicsPage</name>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="54"/>
        <source>按标题或概括搜索话题</source>
        <translation>Search topics by title or summary</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="91"/>
        <source>工作日</source>
        <translation>Workday</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="92"/>
        <location filename="../../gui/pages/topics_page.py" line="198"/>
        <source>问答</source>
        <translation>Turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="93"/>
        <location filename="../../gui/pages/topics_page.py" line="105"/>
        <source>话题</source>
        <translation>Topic</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="94"/>
        <source>复核</source>
        <translation>Review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="94"/>
        <source>已复核</source>
        <translation>reviewed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="106"/>
        <source>当日概括</source>
        <translation>That day&apos;s segment</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="107"/>
        <source>问答数</source>
        <translation>Turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="64"/>
        <source>更多问答</source>
        <translation>More turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="84"/>
        <source>选择一个工作日和话题。</source>
        <translation>Choose a workday and a topic.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="124"/>
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="132"/>
        <source>无活动记录</source>
        <translation>no activity yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="132"/>
        <source>空闲 {0} 分钟</source>
        <translation>idle {0} min</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="133"/>
        <source>前一工作日 {0} 待复核</source>
        <translation>workday {0} awaits its review</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="135"/>
        <source>今天是工作日 {0} · 待整理 {1} 条问答 · {2}</source>
        <translation>Workday {0} · {1} turns to file · {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="198"/>
        <source>{0} 条问答</source>
        <translation>{0} turns</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="198"/>
        <source>每日概括</source>
        <translation>Daily segments</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="198"/>
        <source>关联任务</source>
        <translation>Linked tasks</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="199"/>
        <source>用户</source>
        <translation>User</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="199"/>
        <source>助手</source>
        <translation>Assistant</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="196"/>
        <source>任务</source>
        <translation>task</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="196"/>
        <source>闲聊</source>
        <translation>chat</translation>
    </message>
    <message>
        <location filename="../../gui/pages/topics_page.py" line="196"/>
        <source>讨论</source>
        <translation>discussion</translation>
    </message>
</context>
<context>
    <name>Words</name>
    <message>
        <location filename="../../gui/words.py" line="17"/>
        <source>，</source>
        <translation>, </translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="22"/>
        <source>；</source>
        <translation>; </translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="28"/>
        <source>纠正开错的别名</source>
        <translation>Correct wrong aliases</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="29"/>
        <source>合并重复条目</source>
        <translation>Merge duplicates</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="30"/>
        <source>淘汰过期条目</source>
        <translation>Evict stale entries</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="31"/>
        <source>折叠旧运行档案</source>
        <translation>Fold old episodes</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="32"/>
        <source>向量索引对账</source>
        <translation>Reconcile the vector index</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="38"/>
        <source>{0}：{1}</source>
        <translation>{0}: {1}</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="43"/>
        <source>{0}（{1}）</source>
        <translation>{0} ({1})</translation>
    </message>
    <message>
        <location filename="../../gui/words.py" line="48"/>
        <source>「{0}」</source>
        <translation>“{0}”</translation>
    </message>
</context>
</TS>
